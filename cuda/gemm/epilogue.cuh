// The GEMM family's epilogue contract, the identity epilogue, and the stores every WMMA step
// shares. Every kernel of the family ends in an epilogue functor applied to the fp32 results
// before the single rounding to fp16, so GEMM+bias+GELU runs on exactly the tiles, pipelines
// and stores of the plain GEMM.
//
// Epilogue functor contract (Epi). Every path of the family (the WMMA tiles with their parked,
// register and split-K epilogues, both wgmma tiles, the GEMV's slabs) names the element it hands
// the functor by its row and column of C, so an epilogue written once reaches every M. The
// functor reads its per-element operands (a residual) itself; its column operand (a bias) the
// paths load, stage and prepare for it, each as suits it, and hand it over in fp32:
//   template <bool VEC>
//   __device__ void apply(float (&v)[8], const float (&op)[8], int row, int col0, int N) const;
//     transforms the fp32 values of C[row, col0 .. col0+7] in place (row < M, col0 < N,
//     col0 % 8 == 0); op: their column operands as prep() made them (0 without one). VEC: all
//     8 columns are < N and the functor's own operands may be read 16 bytes at a time; else
//     the columns from N on are not C's: their values are dropped, their operands not read.
//   __device__ float apply1(float v, float op, int row, int col) const;  one element, C[row,
//     col], its column operand prepared (0 without one). Called for elements inside C; a functor
//     without kElemOperand may also get values outside C, whose results are never stored, and
//     row -1 where the path does not learn it (a WMMA tile's fragments, in registers).
//   bool vec_ok() const;  (host) whether the functor's operands allow VEC.
//   static constexpr bool kElemOperand;  whether it reads an operand per element (row, col),
//     e.g. a residual: the register epilogue then learns each fragment element's row, and
//     every path applies it inside C only.
//   static constexpr bool kColOperand;  whether it reads one 16-bit operand per output column
//     (the bias, in C's element type: fp16, or bf16 for a functor of the bf16 paths). If so,
//     the pipelined kernel copies the block's columns of it into shared memory with the first
//     k-tile (its latency hides under the prologue's), the cluster split-K kernel prefetches
//     them into L2 (or stages them, STAGE) and loads a thread's 8 after its main loop, the
//     wgmma tiles load them before their loops, the other tiles at their store (col_operand8),
//     all of them through
//   const T *col_operand() const;  the operand (N values; T is half, or bf16 on the bf16
//     paths: gemm/bf16_paths.cuh, whose steps alone take a bf16 functor), and
//   __device__ float prep(float operand) const;  the operand as apply and apply1 take it (once
//     per column where the kernel reuses it across rows).
// Optional:
//   SlabEpi slab_epi() const;  (host) the same epilogue as a run-time descriptor for the GEMV's
//     slab kernels (M <= 64; gemv/gemv_slabs_api.cuh): SlabEpi (a bias and a GELU kind), or
//     SlabEpiResidual (SlabEpi and a residual, 16-byte aligned with a row stride of a multiple of
//     8 wherever vec_ok() holds). The residual is a compile-time property of the descriptor's
//     type: a SlabEpi form runs the one instantiation of each slab kernel that the GEMV itself
//     and every family share, and the few-row wgmma tile's shared instantiation (17..64 rows,
//     SharesRuntimeForm below); a SlabEpiResidual form runs slab kernels instantiated for it
//     alone, and the few-row tile built for the functor. (With the residual in SlabEpi, tested
//     at run time at every store, the GEMV's own kernels measured ~8% slower at one row.) A
//     functor without slab_epi() still reaches every M: the few-row tile is built for it, and
//     where the slabs would run, the tiles do (HasRuntimeForm below). A new run-time form means
//     new slab instantiations (and a GEMV overload of each slab launcher), never a change to
//     SlabEpi's: that would change the GEMV's own kernels.
//   static constexpr int kParkParts;  the fused epilogue's row parts (epilogue_parked.cuh).
//   static constexpr bool kColOperandEarly;  (with kColOperand) the warp-specialized kernel loads
//     a tile's column operand into registers when a consumer starts the tile, not at its store
//     (ws_col_operand_early.cuh; GEMM+bias+GELU v21's functor).
//   static constexpr bool kSplitApply;  with `float pre(float v, float op)` and `float post(float
//     x)`: apply1(v, op) = post(pre(v, op)), so that the warp-specialized kernel's consumers
//     stage pre (rounded to T) and the producer warpgroup's idle warps apply post to it under
//     the next tile's main loop (ws_epilogue_warps.cuh; GEMM+bias+GELU v22's functor).
// Element type: the functors are templates on it (EpiBiasGelu<..., T>, EpiBiasResidualT<T>);
// their fp16 forms run everywhere, their bf16 forms only on the paths of gemm/bf16_paths.cuh
// (v12's warp-specialized kernel, v9's wgmma tile, v1's WMMA kernel), which read the operands
// through store_chunk / load_operand8 / apply1, all generic on T. The other paths' operand code
// (staging, prefetch, the slabs' run-time form) is fp16 only and never sees a bf16 functor.
#pragma once
#include <type_traits>
#include <utility>

#include "gemm/cp_async.cuh"
#include "gemm/elem.cuh"
#include "gemm/wmma_tile.cuh"
#include "gemv/gemv_slabs_api.cuh"

namespace rlg {

// 8 fp16 (or, T = bf16, bf16) values (16-byte aligned) -> fp32.
template <class T = half>
__device__ __forceinline__ void unpack8(const uint4 &raw, float (&f)[8]) {
  const typename Elem<T>::Pair *h2 = reinterpret_cast<const typename Elem<T>::Pair *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = Elem<T>::to_float2(h2[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}

template <class T = half>
__device__ __forceinline__ uint4 pack8(const float (&f)[8]) {
  uint4 raw;
  typename Elem<T>::Pair *h2 = reinterpret_cast<typename Elem<T>::Pair *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) h2[i] = Elem<T>::from_floats(f[2 * i], f[2 * i + 1]);
  return raw;
}

// 8 results to T (fp16, bf16) in one 16-byte store (dst 16-byte aligned).
template <class T>
__device__ __forceinline__ void store8(T *dst, const float (&v)[8]) {
  *reinterpret_cast<uint4 *>(dst) = pack8<T>(v);
}

// A functor's 16-bit operand (fp16, or bf16 with the bf16 paths) of columns col0 .. col0 + 7 (p
// points at column col0's) in fp32, as apply<VEC> reads it: VEC, one 16-byte load; else element
// loads of the columns < N (0 past N).
template <bool VEC, class T>
__device__ __forceinline__ void load_operand8(const T *p, int col0, int N, float (&f)[8]) {
  if constexpr (VEC) {
    unpack8<T>(__ldg(reinterpret_cast<const uint4 *>(p)), f);
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) f[i] = col0 + i < N ? Elem<T>::to_float(__ldg(p + i)) : 0.0f;
  }
}

// The functor's column operand of columns col0 .. col0 + 7 (col0 % 8 == 0), prepared, as apply
// takes it: read at the store (0 without one, and past N).
template <bool VEC, class Epi>
__device__ __forceinline__ void col_operand8(const Epi &epi, int col0, int N, float (&op)[8]) {
  if constexpr (Epi::kColOperand) {
    load_operand8<VEC>(epi.col_operand() + col0, col0, N, op);
#pragma unroll
    for (int i = 0; i < 8; ++i) op[i] = epi.prep(op[i]);
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) op[i] = 0.0f;
  }
}

// Epilogue store of 8 consecutive results C[row, col0 .. col0+7] (col0 % 8 == 0), rounded to
// C's element type T (fp16 on every path; bf16 on the paths of gemm/bf16_paths.cuh).
template <bool VEC, class Epi, class T>
__device__ __forceinline__ void store_chunk(const Epi &epi, float (&v)[8], T *C, int row,
                                            int col0, int M, int N) {
  if (row >= M || col0 >= N) return;
  float op[8];
  col_operand8<VEC>(epi, col0, N, op);
  epi.template apply<VEC>(v, op, row, col0, N);
  T *dst = C + static_cast<size_t>(row) * N + col0;
  if constexpr (VEC) {
    store8(dst, v);
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (col0 + i < N) dst[i] = Elem<T>::from_float(v[i]);
  }
}

// The identity epilogue (the plain GEMM, and the store after a register epilogue).
struct EpiIdentity {
  static constexpr bool kColOperand = false, kElemOperand = false;
  template <bool VEC>
  __device__ __forceinline__ void apply(float (&)[8], const float (&)[8], int, int, int) const {}
  __host__ __device__ const half *col_operand() const { return nullptr; }
  __device__ __forceinline__ float prep(float op) const { return op; }
  __device__ __forceinline__ float apply1(float v, float, int, int) const { return v; }
  bool vec_ok() const { return true; }
  SlabEpi slab_epi() const { return kSlabNoEpi; }
};

// Whether a functor has the run-time form slab_epi() (see the contract above).
template <class Epi, class = void>
struct HasRuntimeForm : std::false_type {};
template <class Epi>
struct HasRuntimeForm<Epi, std::void_t<decltype(std::declval<const Epi &>().slab_epi())>>
    : std::true_type {};
// Whether that form is SlabEpi, the one the shared instantiations take (the few-row tile's).
template <class Epi, class = void>
struct SharesRuntimeForm : std::false_type {};
template <class Epi>
using RuntimeFormOf = decltype(std::declval<const Epi &>().slab_epi());
template <class Epi>
struct SharesRuntimeForm<Epi, std::enable_if_t<std::is_same_v<RuntimeFormOf<Epi>, SlabEpi>>>
    : std::true_type {};

// Shared memory after the pipeline's for a functor's column operand (BN halves).
template <class Cfg, class Epi>
constexpr int col_operand_bytes() {
  return Epi::kColOperand ? Cfg::BN * 2 : 0;
}

// One 8-column chunk of results from an fp32 staging area (row r, column c of a region with
// kLdc floats per row) through the functor to C. `swap`: lanes 4..7 of each quarter-warp read
// their two float4 halves in the other order, so when a quarter-warp reads one staged row the
// 8 lanes of an LDS.128 phase hit 8 different 16-byte bank groups.
template <class Cfg>
__device__ __forceinline__ void load_staged8(const float *region, int r, int c, int swap,
                                             float (&v)[8]) {
  const float4 *src = reinterpret_cast<const float4 *>(region + r * Cfg::kLdc + c);
  const float4 x = src[swap], y = src[swap ^ 1];
  const float4 lo = swap ? y : x, hi = swap ? x : y;
  v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
  v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
}
template <class Cfg, bool VEC, class Epi>
__device__ __forceinline__ void emit_chunk(const float *region, int r, int c, int swap, half *C,
                                           int M, int N, int row0, int col0, const Epi &epi) {
  float v[8];
  load_staged8<Cfg>(region, r, c, swap, v);
  store_chunk<VEC>(epi, v, C, row0 + r, col0 + c, M, N);
}

__device__ __forceinline__ int chunk_swap() { return (threadIdx.x >> 2) & 1; }

// cp.async of the functor's column operand for block columns [col0, col0 + BN) into dst
// (zeros past N; 16-byte path only, so N % 8 == 0 and a chunk is wholly in or out). The
// caller commits it with its next group.
template <class Cfg, class Epi>
__device__ __forceinline__ void stage_col_operand(const Epi &epi, half *dst, int col0, int N) {
  if constexpr (Epi::kColOperand) {
    const half *src = epi.col_operand();
    for (int c = threadIdx.x * 8; c < Cfg::BN; c += Cfg::kThreads * 8) {
      const bool ok = col0 + c < N;
      cp_async16(dst + c, ok ? src + col0 + c : src, ok);
    }
  }
}

// The functor's operand for block columns [col0, col0 + BN) into L2 (one 128-byte line per
// thread of the first BN / 64; the 16-byte path's bias is 16-byte aligned).
template <class Cfg, class Epi>
__device__ __forceinline__ void prefetch_col_operand(const Epi &epi, int col0, int N) {
  if constexpr (Epi::kColOperand) {
    const int col = col0 + static_cast<int>(threadIdx.x) * 64;
    if (threadIdx.x < Cfg::BN / 64 && col < N)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(epi.col_operand() + col));
  }
}

// The functor's operand of columns col .. col + 7 (col % 8 == 0; zeros past N), prepared.
template <class Epi>
__device__ __forceinline__ void load_col_operand8(const Epi &epi, int col, int N,
                                                  float (&op)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) op[i] = 0.0f;
  if constexpr (Epi::kColOperand) {
    if (col < N) {  // N % 8 == 0 on the 16-byte path: all 8 columns exist
      const uint4 raw = __ldg(reinterpret_cast<const uint4 *>(epi.col_operand() + col));
      const __half2 *h2 = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(h2[i]);
        op[2 * i] = epi.prep(f.x);
        op[2 * i + 1] = epi.prep(f.y);
      }
    }
  }
}

// A thread's operands of block columns c .. c + 7 (c % 8 == 0), prepared, after a split-K
// kernel's main loop: from the copy staged in shared memory at ops (STAGE; landed and
// published by the loop's barriers) or from memory (block columns start at col0).
template <bool STAGE, class Epi>
__device__ __forceinline__ void col_operand8_after_loop(const Epi &epi, const half *ops,
                                                        int col0, int c, int N,
                                                        float (&op)[8]) {
  if constexpr (STAGE) {
#pragma unroll
    for (int i = 0; i < 8; ++i) op[i] = epi.prep(__half2float(ops[c + i]));
  } else {
    load_col_operand8(epi, col0 + c, N, op);
  }
}


// Epilogue: each warp stages one 16-row strip of its accumulators in fp32 smem, then every
// lane applies the functor to 8-column chunks and stores them (16 bytes on the VEC path; 8
// lanes cover 128 contiguous bytes of one row). The caller has made the smem free.
template <class Cfg, bool VEC, class Epi>
__device__ __forceinline__ void epilogue(float *stage, FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                         half *C, int M, int N, int row0, int col0,
                                         const Epi &epi) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  constexpr int kChunks = 16 * kChunksPerRow;  // a multiple of 32 since WN % 16 == 0
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i) {
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(stage + j * 16, acc[i][j], Cfg::kLdc, wmma::mem_row_major);
    __syncwarp();
#pragma unroll
    for (int chunk = lane; chunk < kChunks; chunk += 32)
      emit_chunk<Cfg, VEC>(stage, chunk / kChunksPerRow, (chunk % kChunksPerRow) * 8,
                           chunk_swap(), C, M, N, row0 + i * 16, col0, epi);
    __syncwarp();  // all lanes have read the strip before the next one overwrites it
  }
}

}  // namespace rlg
