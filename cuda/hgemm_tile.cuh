// Shared WMMA GEMM machinery for hgemm.cu (plain C = A.B) and gemm_gelu.cu (fused epilogue).
//
// Row-major fp16 A[M x K] . B[K x N] -> C[M x N] with fp32 accumulation on Tensor Cores through
// nvcuda::wmma (16x16x16 half fragments). Every kernel ends in an epilogue functor applied to
// the fp32 results before the single rounding to fp16, so the fused GEMM+bias+GELU runs on
// exactly the same tiles, pipeline and stores as the plain GEMM.
//
// Epilogue functor contract (Epi):
//   template <bool VEC> __device__ void apply(float (&v)[8], int col0, int N) const;
//     transforms the fp32 values of C[row, col0 .. col0+7] in place (col0 % 8 == 0). VEC: all
//     8 columns are < N and the functor's own operands may be read 16 bytes at a time.
//   bool vec_ok() const;  (host) whether the functor's operands allow VEC.
//   static constexpr bool kColOperand;  whether it reads one fp16 operand per output column
//     (the bias). If so, the pipelined kernel (v7+) copies the block's columns of it into
//     shared memory with the first k-tile (its latency hides under the prologue's), the
//     cluster split-K kernel (v11+) prefetches them into L2 and loads a thread's 8 into
//     registers after its main loop, and both apply the functor in registers through
//   const half *col_operand() const;  the operand (N values),
//   __device__ float prep(float operand) const;  the operand as apply1 takes it (once per
//     column where the kernel reuses it across rows), and
//   __device__ float apply1(float v, float prepped) const;  one element.
//   SlabEpi slab_epi() const;  (host) the same epilogue for the GEMV slab kernels (v14).
//
// Two load paths per kernel (template VEC):
//   VEC   (N % 8 == 0, K % 8 == 0, A/B/C 16-byte aligned): 16-byte chunks; a chunk is wholly
//         inside or wholly outside the matrix, outside ones are zero-filled.
//   !VEC  (anything else): element loads with bounds checks, zero-filled outside.
// Stores are always guarded by row < M and col < N.
#pragma once
#include <cooperative_groups.h>
#include <mma.h>

#include <type_traits>

#include "common.cuh"
#include "gemv_slab.cuh"

namespace rlg {
using namespace nvcuda;

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

static inline bool aligned_to(const void *p, uintptr_t bytes) {
  return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

// ---------------------------------------------------------------------------------------
// cp.async (sm_80+): 16-byte global->shared copies that do not block the issuing warp.
// src-size 0 reads nothing and zero-fills the 16 destination bytes (the edge tiles).
__device__ __forceinline__ void cp_async16(void *smem_dst, const void *gmem_src, bool pred) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  const int src_bytes = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------
// 8 results to fp16 in one 16-byte store (dst 16-byte aligned).
__device__ __forceinline__ void store8(half *dst, const float (&v)[8]) {
  uint4 packed;
  __half2 *h2 = reinterpret_cast<__half2 *>(&packed);
#pragma unroll
  for (int i = 0; i < 4; ++i) h2[i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
  *reinterpret_cast<uint4 *>(dst) = packed;
}

// Epilogue store of 8 consecutive results C[row, col0 .. col0+7] (col0 % 8 == 0).
template <bool VEC, class Epi>
__device__ __forceinline__ void store_chunk(const Epi &epi, float (&v)[8], half *C, int row,
                                            int col0, int M, int N) {
  if (row >= M || col0 >= N) return;
  epi.template apply<VEC>(v, col0, N);
  half *dst = C + static_cast<size_t>(row) * N + col0;
  if constexpr (VEC) {
    store8(dst, v);
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (col0 + i < N) dst[i] = __float2half_rn(v[i]);
  }
}

// The identity epilogue (the plain GEMM, and the store after a register epilogue).
struct EpiIdentity {
  static constexpr bool kColOperand = false;
  template <bool VEC>
  __device__ __forceinline__ void apply(float (&)[8], int, int) const {}
  __host__ __device__ const half *col_operand() const { return nullptr; }
  __device__ __forceinline__ float prep(float op) const { return op; }
  __device__ __forceinline__ float apply1(float v, float) const { return v; }
  bool vec_ok() const { return true; }
  SlabEpi slab_epi() const { return kSlabNoEpi; }
};

// Shared memory after the pipeline's for a functor's column operand (BN halves).
template <class Cfg, class Epi>
constexpr int col_operand_bytes() {
  return Epi::kColOperand ? Cfg::BN * 2 : 0;
}

// ---------------------------------------------------------------------------------------
// v1: one warp per 16x16 output tile, fragments loaded straight from global memory. Fragments
// that cross an edge (or any fragment on the !VEC path) are staged through a per-warp 16x16
// smem tile with bounds-checked element loads. VEC here also needs 32-byte aligned A and B
// (WMMA's rule for a fragment pointer; row offsets are multiples of 16 elements, so the base
// alignment carries over to every fragment).
constexpr int kSimpleWarpsM = 2, kSimpleWarpsN = 4;
constexpr int kSimpleWarps = kSimpleWarpsM * kSimpleWarpsN;
constexpr int kSimpleBM = 16 * kSimpleWarpsM, kSimpleBN = 16 * kSimpleWarpsN;

template <bool VEC, class Epi>
__global__ void __launch_bounds__(kSimpleWarps * 32)
    simple_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                       half *__restrict__ C, int M, int N, int K, Epi epi) {
  __shared__ __align__(128) half sA[kSimpleWarps][16 * 16];
  __shared__ __align__(128) half sB[kSimpleWarps][16 * 16];
  __shared__ __align__(128) float sC[kSimpleWarps][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int blocks_n = static_cast<int>(rl_ceil_div(N, kSimpleBN));
  const int bm = blockIdx.x / blocks_n, bn = blockIdx.x % blocks_n;
  const int row0 = (bm * kSimpleWarpsM + warp / kSimpleWarpsN) * 16;
  const int col0 = (bn * kSimpleWarpsN + warp % kSimpleWarpsN) * 16;
  if (row0 >= M || col0 >= N) return;  // whole warp; no block-wide barrier follows

  FragC acc;
  wmma::fill_fragment(acc, 0.0f);
  const bool inner = VEC && row0 + 16 <= M && col0 + 16 <= N;
  for (int k0 = 0; k0 < K; k0 += 16) {
    FragA a;
    FragB b;
    if (inner && k0 + 16 <= K) {
      wmma::load_matrix_sync(a, A + static_cast<size_t>(row0) * K + k0, K);
      wmma::load_matrix_sync(b, B + static_cast<size_t>(k0) * N + col0, N);
    } else {
      __syncwarp();  // the previous step's fragment loads are done with sA/sB
      for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = e % 16;
        sA[warp][e] = (row0 + r < M && k0 + c < K) ? A[static_cast<size_t>(row0 + r) * K + k0 + c]
                                                   : __float2half(0.0f);
        sB[warp][e] = (k0 + r < K && col0 + c < N) ? B[static_cast<size_t>(k0 + r) * N + col0 + c]
                                                   : __float2half(0.0f);
      }
      __syncwarp();
      wmma::load_matrix_sync(a, sA[warp], 16);
      wmma::load_matrix_sync(b, sB[warp], 16);
    }
    wmma::mma_sync(acc, a, b, acc);
  }

  wmma::store_matrix_sync(sC[warp], acc, 16, wmma::mem_row_major);
  __syncwarp();
  const int r = lane / 2, c = (lane % 2) * 8;  // 32 lanes x 8 values = the 16x16 tile
  float v[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = sC[warp][r * 16 + c + i];
  store_chunk<VEC>(epi, v, C, row0 + r, col0 + c, M, N);
}

template <class Epi>
int launch_simple(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                  cudaStream_t stream) {
  const long long blocks = rl_ceil_div(N, kSimpleBN) * rl_ceil_div(M, kSimpleBM);
  RL_REQUIRE(blocks <= 0x7fffffffLL);
  const unsigned grid = static_cast<unsigned>(blocks);
  const bool vec = N % 8 == 0 && K % 8 == 0 && aligned_to(A, 32) && aligned_to(B, 32) &&
                   aligned_to(C, 16) && epi.vec_ok();
  if (vec)
    simple_wmma_kernel<true, Epi><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K, epi);
  else
    simple_wmma_kernel<false, Epi><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

// ---------------------------------------------------------------------------------------
// v2+: block tile BM x BN staged through shared memory in BK-deep k-tiles, STAGES buffers.
// Warps form a (BM/WM) x (BN/WN) grid, each owning (WM/16) x (WN/16) accumulator fragments.
// ASYNC: cp.async loads that overlap the MMAs; else synchronous 16-byte loads.
// GROUP_M: block rows per raster group (L2 reuse); MIN_BLOCKS: __launch_bounds__ occupancy.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, bool ASYNC_, int GROUP_M_,
          int MIN_BLOCKS_>
struct TileCfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
  static constexpr int kStages = STAGES_, kGroupM = GROUP_M_, kMinBlocks = MIN_BLOCKS_;
  static constexpr bool kAsync = ASYNC_;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;
  static constexpr int kFragsM = WM / 16, kFragsN = WN / 16;
  // +8 halves (16 bytes) per row: the 8 row addresses of one ldmatrix phase land in 8
  // different 16-byte bank groups, so fragment loads are conflict-free.
  static constexpr int kLda = BK + 8, kLdb = BN + 8;
  static constexpr int kAHalves = BM * kLda, kBHalves = BK * kLdb;
  static constexpr int kStageHalves = kAHalves + kBHalves;
  static constexpr int kPipeBytes = kStages * kStageHalves * 2;
  // Epilogue staging: per warp one 16-row strip of its tile in fp32, rows padded by 8 floats
  // so the fragment stores are conflict-free per half-warp.
  static constexpr int kLdc = WN + 8;
  static constexpr int kEpiBytes = (kThreads / 32) * 16 * kLdc * 4;
  // v6 parks each warp's whole WM x WN result (same row padding) behind the pipeline buffers.
  static constexpr int kParkBytes = (kThreads / 32) * WM * kLdc * 4;
  static constexpr int kSmemBytes = kPipeBytes > kEpiBytes ? kPipeBytes : kEpiBytes;

  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0, "warp grid");
  static_assert(BK % 16 == 0 && kStages >= 2, "k tiling");
  static_assert((BM * BK / 8) % kThreads == 0 && (BK * BN / 8) % kThreads == 0, "chunk split");
  // WMMA fragment pointers must be 32-byte aligned: every stage and operand offset is.
  static_assert((kAHalves * 2) % 128 == 0 && (kBHalves * 2) % 128 == 0, "stage alignment");
  static_assert(kSmemBytes <= 227 * 1024, "smem per block");
};

// Tile index -> (tile row, tile col), walking GROUP_M tile rows column by column so that
// the blocks resident at once share A row-panels and B column-panels in L2.
template <int GROUP_M>
__device__ __forceinline__ void tile_coords(int pid, int tiles_m, int tiles_n, int &tm, int &tn) {
  const int group_size = GROUP_M * tiles_n;
  const int first_m = (pid / group_size) * GROUP_M;
  const int rows = min(tiles_m - first_m, GROUP_M);
  const int in_group = pid % group_size;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}

// A block's output tile (tm, tn) from its linear tile index, and this warp's place (wm, wn)
// in it: the prologue of every one-tile-per-block kernel.
template <class Cfg>
struct TilePos {
  int tm, tn, wm, wn;
  __device__ __forceinline__ TilePos(int tile, int M, int N) {
    tile_coords<Cfg::kGroupM>(tile, static_cast<int>(rl_ceil_div(M, Cfg::BM)),
                              static_cast<int>(rl_ceil_div(N, Cfg::BN)), tm, tn);
    const int warp = threadIdx.x / 32;
    wm = warp / Cfg::kWarpsN;
    wn = warp % Cfg::kWarpsN;
  }
};

// Streams successive ROWS x COLS tiles of a row-major matrix X (leading dimension ld) into
// smem tiles of LDS halves per row, moving by (DR, DC) elements after each tile. A thread
// owns one column of 16-byte chunks (VEC) or of elements (!VEC) and every kRowStep-th row of
// it, so the per-tile work is one pointer bump plus a bounds check per row. Out-of-range
// elements become zero.
template <class Cfg, int ROWS, int COLS, int LDS, int DR, int DC, bool VEC>
struct TileLoader {
  static constexpr int kColsPerThread = VEC ? 8 : 1;
  static constexpr int kThreadsPerRow = COLS / kColsPerThread;
  static constexpr int kRowStep = Cfg::kThreads / kThreadsPerRow;
  static constexpr int kIters = ROWS / kRowStep;
  static_assert(Cfg::kThreads % kThreadsPerRow == 0 && ROWS % kRowStep == 0, "loader split");

  const half *base;  // the matrix: the harmless source of predicated-off copies
  const half *src;   // this thread's first element of the current tile
  size_t step;       // elements between the rows it loads
  int row, col;      // matrix coordinates of src
  int dst;           // halves from the smem tile start to its first element

  TileLoader() = default;
  __device__ __forceinline__ TileLoader(const half *X, int ld, int r0, int c0) : base(X) {
    const int r = threadIdx.x / kThreadsPerRow;
    const int c = (threadIdx.x % kThreadsPerRow) * kColsPerThread;
    row = r0 + r;
    col = c0 + c;
    src = X + static_cast<size_t>(row) * ld + col;
    step = static_cast<size_t>(kRowStep) * ld;
    dst = r * LDS + c;
  }

  // The current tile of X[rows x cols] into s. !valid (a k-tile past the end): the async
  // path zero-fills (keeps the per-thread commit groups uniform), the others skip.
  __device__ __forceinline__ void load(half *s, int rows, int cols, bool valid) const {
    const bool col_ok = valid && col < cols;  // VEC: cols % 8 == 0, so the whole chunk
    if constexpr (VEC && Cfg::kAsync) {
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const bool ok = col_ok && row + i * kRowStep < rows;
        cp_async16(s + dst + i * kRowStep * LDS, ok ? src + i * step : base, ok);
      }
    } else {
      if (!valid) return;
      using T = typename std::conditional<VEC, uint4, half>::type;
      T zero;
      memset(&zero, 0, sizeof(T));
      T v[kIters];  // all loads in flight before the first store
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const bool ok = col_ok && row + i * kRowStep < rows;
        v[i] = ok ? __ldg(reinterpret_cast<const T *>(src + i * step)) : zero;
      }
#pragma unroll
      for (int i = 0; i < kIters; ++i) *reinterpret_cast<T *>(s + dst + i * kRowStep * LDS) = v[i];
    }
  }

  __device__ __forceinline__ void advance(int ld) {
    row += DR;
    col += DC;
    src += static_cast<size_t>(DR) * ld + DC;
  }
};

// This warp's fragments of k-step kk (16 deep) of a resident stage.
template <class Cfg>
__device__ __forceinline__ void load_frags(const half *s, int wm, int wn, int kk,
                                           FragA (&a)[Cfg::kFragsM], FragB (&b)[Cfg::kFragsN]) {
  const half *sA = s + (wm * Cfg::WM) * Cfg::kLda + kk;
  const half *sB = s + Cfg::kAHalves + kk * Cfg::kLdb + wn * Cfg::WN;
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
    wmma::load_matrix_sync(a[i], sA + i * 16 * Cfg::kLda, Cfg::kLda);
#pragma unroll
  for (int j = 0; j < Cfg::kFragsN; ++j) wmma::load_matrix_sync(b[j], sB + j * 16, Cfg::kLdb);
}

template <class Cfg>
__device__ __forceinline__ void mma_frags(const FragA (&a)[Cfg::kFragsM],
                                          const FragB (&b)[Cfg::kFragsN],
                                          FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
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

// Register epilogue: acc = epi(acc, operand of its column) for this warp's tile, whose WN
// columns of the operand start at ops. WMMA leaves which (row, col) a fragment element holds
// unspecified, so the warp learns it: a 16x16 tile whose entries are their own column index,
// loaded into an accumulator fragment, gives each element's column. `stage` is the warp's
// free 16 x kLdc floats (the epilogue's staging area); it is free again on return.
template <class Cfg, class Epi>
__device__ __forceinline__ void apply_in_registers(const Epi &epi,
                                                   FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                   const half *ops, float *stage) {
  const int lane = threadIdx.x % 32;
  for (int e = lane; e < 256; e += 32) stage[(e / 16) * Cfg::kLdc + e % 16] = float(e % 16);
  __syncwarp();
  FragC cols;
  wmma::load_matrix_sync(cols, stage, Cfg::kLdc, wmma::mem_row_major);
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Cfg::kFragsN; ++j) {
    float op[FragC::num_elements];
#pragma unroll
    for (int e = 0; e < FragC::num_elements; ++e)
      op[e] = epi.prep(__half2float(ops[j * 16 + static_cast<int>(cols.x[e])]));
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
      for (int e = 0; e < FragC::num_elements; ++e)
        acc[i][j].x[e] = epi.apply1(acc[i][j].x[e], op[e]);
  }
}

// The functor's operand of one lane's 8 columns, prepared once, applied to each chunk.
template <class Epi>
struct EpiPrepared {
  const Epi &epi;
  float op[8];
  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], int, int) const {
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = epi.apply1(v[i], op[i]);
  }
};

// Parked epilogue for a functor with a column operand (the fused bias+GELU), where the
// pipeline smem holds every warp's whole WM x WN tile (kParkBytes): the warp first parks all
// its accumulators in fp32, then applies the functor chunk by chunk on the way out, with the
// accumulators' ~128 registers free for the chains of 4 chunks at a time (applied in
// registers, at ~254 registers, ptxas has little room to overlap them). At 2048^3, where
// one wave of tiles leaves the epilogue exposed, fused / plain came to 1.033-1.035 (E2; the
// register form: 1.036 in report H, a per-strip form 1.038-1.042 in E1; docs/perf-log.md);
// the SFU's tanh, one per value at 16 per clock per SM, bounds it at ~2k cycles per tile. A lane's chunks all have the same 8 columns (32
// lanes cover whole rows), so its operand is read and prepared once. `park` is the warp's
// WM x kLdc floats.
template <class Cfg, class Epi>
__device__ __forceinline__ void epilogue_parked(const Epi &epi, float *park,
                                                FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                const half *ops, half *C, int M, int N,
                                                int row0, int col0) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  constexpr int kChunks = Cfg::WM * kChunksPerRow;
  static_assert(32 % kChunksPerRow == 0, "a lane's chunks share their 8 columns");
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(park + i * 16 * Cfg::kLdc + j * 16, acc[i][j], Cfg::kLdc,
                              wmma::mem_row_major);
  __syncwarp();
  const int lane = threadIdx.x % 32, c = (lane % kChunksPerRow) * 8;
  EpiPrepared<Epi> f{epi, {}};
#pragma unroll
  for (int q = 0; q < 8; ++q) f.op[q] = epi.prep(__half2float(ops[c + q]));
  if (row0 + Cfg::WM <= M && col0 + Cfg::WN <= N) {
    // The whole warp tile is inside C: no guard per chunk, so that ptxas may interleave the
    // chains of several chunks (a guard per chunk made it finish one before the next).
    constexpr int G = kChunks / 32 % 4 == 0 ? 4 : kChunks / 32 % 2 == 0 ? 2 : 1;
    const auto batch = [&](int q0) {
      float v[G][8];  // G chunks in flight: loads, then all 8 G chains, then the stores
#pragma unroll
      for (int g = 0; g < G; ++g)
        load_staged8<Cfg>(park, (lane + 32 * (q0 + g)) / kChunksPerRow, c, chunk_swap(), v[g]);
#pragma unroll
      for (int g = 0; g < G; ++g) f.template apply<true>(v[g], 0, 0);
#pragma unroll
      for (int g = 0; g < G; ++g)
        store8(C + static_cast<size_t>(row0 + (lane + 32 * (q0 + g)) / kChunksPerRow) * N + col0 +
                   c,
               v[g]);
    };
    if constexpr (Epi::kRolledEpilogue) {
      // One batch of code, run kChunks / 32 / G times: unrolled, a functor of ~14
      // instructions per value made a straight line of ~2k instructions that every CTA runs
      // once, with no reuse from the instruction caches (GEMM+GELU v20; docs/perf-log.md).
#pragma unroll 1
      for (int q0 = 0; q0 < kChunks / 32; q0 += G) batch(q0);
    } else {
#pragma unroll
      for (int q0 = 0; q0 < kChunks / 32; q0 += G) batch(q0);
    }
  } else {
#pragma unroll
    for (int chunk = lane; chunk < kChunks; chunk += 32)
      emit_chunk<Cfg, true>(park, chunk / kChunksPerRow, c, chunk_swap(), C, M, N, row0, col0,
                            f);
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

// The multistage cp.async pipeline over the k-tiles of one block tile. Iteration kt waits for
// k-tile kt, then refills the buffer that iteration kt-1 computed from (every warp has passed
// the barrier, so it is free) with k-tile kt+STAGES-1, and computes k-tile kt while that copy
// is in flight. One __syncthreads per k-tile.
template <class Cfg, bool VEC>
struct Pipeline {
  using LoaderA = TileLoader<Cfg, Cfg::BM, Cfg::BK, Cfg::kLda, 0, Cfg::BK, VEC>;
  using LoaderB = TileLoader<Cfg, Cfg::BK, Cfg::BN, Cfg::kLdb, Cfg::BK, 0, VEC>;
  static constexpr bool kAsyncCopy = VEC && Cfg::kAsync;

  half *smem;
  const half *A, *B;
  int M, N, K, k_tiles;
  LoaderA load_a;
  LoaderB load_b;

  __device__ __forceinline__ Pipeline(half *smem_, const half *A_, const half *B_, int M_, int N_,
                                      int K_)
      : smem(smem_), A(A_), B(B_), M(M_), N(N_), K(K_),
        k_tiles(static_cast<int>(rl_ceil_div(K_, Cfg::BK))) {}

  // k-tiles are loaded strictly in order, so each loader just moves on after every one.
  __device__ __forceinline__ void load_next(int stage, bool valid) {
    half *s = smem + stage * Cfg::kStageHalves;
    load_a.load(s, M, K, valid);
    load_b.load(s + Cfg::kAHalves, K, N, valid);
    load_a.advance(K);
    load_b.advance(N);
    if constexpr (Cfg::kAsync) cp_async_commit();
  }

  // Aims the loaders at block tile (m0, n0) and puts its k-tiles 0 .. STAGES-2 in flight, one
  // commit group each. The buffers must be free (after drain()).
  __device__ __forceinline__ void start(int m0, int n0) { start_at(m0, n0, 0); }

  // start() from column k0 of A / row k0 of B (v11's K slices; k0 % BK == 0). k_tiles counts
  // the k-tiles to load from there (the caller sets it first).
  __device__ __forceinline__ void start_at(int m0, int n0, int k0) {
    load_a = LoaderA(A, K, m0, k0);
    load_b = LoaderB(B, N, k0, n0);
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 1; ++s) load_next(s, s < k_tiles);
  }

  // acc += this warp's (wm, wn) share of the started tile. `between()` runs once per k-tile,
  // after the first k-step's MMAs are issued: room for work that overlaps them.
  template <class Between>
  __device__ __forceinline__ void run(int wm, int wn, FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                      Between &&between) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      // Groups committed so far: STAGES-1+kt. Leaving STAGES-2 pending completes k-tile kt.
      if constexpr (Cfg::kAsync) cp_async_wait<Cfg::kStages - 2>();
      __syncthreads();  // k-tile kt visible to all; every warp is done with k-tile kt-1
      const half *s = smem + (kt % Cfg::kStages) * Cfg::kStageHalves;
      const int next = kt + Cfg::kStages - 1;
      // Synchronous loads stall until their data is in registers: issue them before any
      // fragment is live. cp.async goes after the first fragment loads, whose latency its
      // address math then hides.
      if constexpr (!kAsyncCopy) load_next(next % Cfg::kStages, next < k_tiles);
      FragA a[Cfg::kFragsM];
      FragB b[Cfg::kFragsN];
      load_frags<Cfg>(s, wm, wn, 0, a, b);
      if constexpr (kAsyncCopy) load_next(next % Cfg::kStages, next < k_tiles);
      mma_frags<Cfg>(a, b, acc);
      between();
#pragma unroll
      for (int kk = 16; kk < Cfg::BK; kk += 16) {
        load_frags<Cfg>(s, wm, wn, kk, a, b);
        mma_frags<Cfg>(a, b, acc);
      }
    }
  }

  // Zero-fill copies of k-tiles past the end may still be landing, and other warps may still
  // read the last k-tile: after this the buffers are free for anything.
  __device__ __forceinline__ void drain() {
    if constexpr (Cfg::kAsync) cp_async_wait<0>();
    __syncthreads();
  }
};

template <class Cfg>
__device__ __forceinline__ void zero(FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
}

// v2..v5: one block per output tile; the epilogue reuses the pipeline buffers as staging.
template <class Cfg, bool VEC, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    tiled_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                      half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const TilePos<Cfg> at(blockIdx.x, M, N);
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn, warp = threadIdx.x / 32;

  Pipeline<Cfg, VEC> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  pipe.start(tm * Cfg::BM, tn * Cfg::BN);
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  zero<Cfg>(acc);
  pipe.run(wm, wn, acc, [] {});
  pipe.drain();
  float *stage = reinterpret_cast<float *>(smem_raw) + warp * 16 * Cfg::kLdc;
  epilogue<Cfg, VEC>(stage, acc, C, M, N, tm * Cfg::BM + wm * Cfg::WM,
                     tn * Cfg::BN + wn * Cfg::WN, epi);
}

// v6: a warp's finished WM x WN results, parked in fp32 in its own smem region (kLdc floats
// per row) and written out one 8-column chunk per lane at a time, during the next tile's
// mainloop, whose issue slots are mostly idle while the tensor cores work.
template <class Cfg, bool VEC, class Epi>
struct ParkedTile {
  static constexpr int kChunksPerRow = Cfg::WN / 8;
  static constexpr int kChunksPerLane = Cfg::WM * kChunksPerRow / 32;
  static_assert((Cfg::WM * kChunksPerRow) % 32 == 0, "chunks per lane");

  float *region;
  int row0 = 0, col0 = 0;         // C coordinates of the region's (0, 0)
  int done = kChunksPerLane;      // chunks this lane has written; all: nothing parked

  // Warp-uniform: every lane has written the same number of chunks.
  __device__ __forceinline__ void emit_one(half *C, int M, int N, const Epi &epi) {
    if (done < kChunksPerLane) {
      const int chunk = done * 32 + threadIdx.x % 32;
      emit_chunk<Cfg, VEC>(region, chunk / kChunksPerRow, (chunk % kChunksPerRow) * 8,
                           chunk_swap(), C, M, N, row0, col0, epi);
      ++done;
    }
  }

  __device__ __forceinline__ void emit_rest(half *C, int M, int N, const Epi &epi) {
    while (done < kChunksPerLane) emit_one(C, M, N, epi);
  }

  // Call after emit_rest: the region is free once every lane has finished reading it.
  __device__ __forceinline__ void park(FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN], int r0, int c0) {
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kFragsN; ++j)
        wmma::store_matrix_sync(region + i * 16 * Cfg::kLdc + j * 16, acc[i][j], Cfg::kLdc,
                                wmma::mem_row_major);
    __syncwarp();
    row0 = r0;
    col0 = c0;
    done = 0;
  }
};

// v6: persistent blocks (grid <= tiles) walk tiles blockIdx.x, +gridDim.x, ... The next tile's
// first k-tiles are put in flight before the finished tile is parked, and the parked results
// go out during the next mainloop, so only the last tile's epilogue is exposed.
template <class Cfg, bool VEC, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    persistent_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                           half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int tiles_m = static_cast<int>(rl_ceil_div(M, Cfg::BM));
  const int tiles_n = static_cast<int>(rl_ceil_div(N, Cfg::BN));
  const int tiles = tiles_m * tiles_n;
  const int warp = threadIdx.x / 32;
  const int wm = warp / Cfg::kWarpsN, wn = warp % Cfg::kWarpsN;

  Pipeline<Cfg, VEC> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  ParkedTile<Cfg, VEC, Epi> parked;
  parked.region =
      reinterpret_cast<float *>(smem_raw + Cfg::kPipeBytes) + warp * Cfg::WM * Cfg::kLdc;

  int tile = blockIdx.x, tm, tn;
  tile_coords<Cfg::kGroupM>(tile, tiles_m, tiles_n, tm, tn);
  pipe.start(tm * Cfg::BM, tn * Cfg::BN);
  for (;;) {
    FragC acc[Cfg::kFragsM][Cfg::kFragsN];
    zero<Cfg>(acc);
    pipe.run(wm, wn, acc, [&] { parked.emit_one(C, M, N, epi); });
    pipe.drain();
    const int row0 = tm * Cfg::BM + wm * Cfg::WM, col0 = tn * Cfg::BN + wn * Cfg::WN;
    tile += gridDim.x;
    if (tile < tiles) {
      tile_coords<Cfg::kGroupM>(tile, tiles_m, tiles_n, tm, tn);
      pipe.start(tm * Cfg::BM, tn * Cfg::BN);
    }
    parked.emit_rest(C, M, N, epi);  // what a short K left of the previous tile
    parked.park(acc, row0, col0);
    if (tile >= tiles) break;
  }
  parked.emit_rest(C, M, N, epi);
}

// v7+: the same tiles, loaders and epilogue with a software-pipelined main loop (the CUTLASS
// sm80 "multistage" order). Fragments are double-buffered in registers: k-step ks loads the
// fragments of step ks+1 (of the next k-tile at the last step) and then issues the MMAs of
// step ks, so no HMMA waits for an ldmatrix it needs right now. The single barrier per k-tile
// sits after the MMAs of step KS-2 are issued: the tensor pipe still holds them while warps
// meet, and the fragments of the last step are already in registers, so the next k-tile's
// first ldmatrix overlaps the last step's MMAs. VEC + cp.async only (the launcher sends
// anything else to the v4/v5 kernels).
//
// Hazards (S = stages, KS = BK/16 >= 2 and even):
//   - k-tile kt+S-1 is copied into the buffer of k-tile kt-1. Every read of that buffer
//     (steps 0..KS-1 of k-tile kt-1) was issued before the barrier at step KS-2 of k-tile
//     kt-1, which every warp has passed before it reaches k-tile kt. Its copies are issued
//     at steps 0 (A) and min(1, KS-2) (B) of k-tile kt and committed at the latter.
//   - k-tile kt+1 is first read at step KS-1 of k-tile kt, after that step's barrier. Groups
//     committed by then: S-1 (prologue) + kt+1; wait_group S-2 leaves S-2 pending, so groups
//     0..kt+1, i.e. k-tiles 0..kt+1, have landed and the barrier publishes them.
//   - At the last k-tile, step KS-1 reads k-tile k_tiles' buffer (already issued as a zero
//     fill, landed by the same wait); those fragments are never used.
template <class Cfg>
__device__ __forceinline__ void run_pipelined(Pipeline<Cfg, true> &pipe, int wm, int wn,
                                              FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  constexpr int KS = Cfg::BK / 16, S = Cfg::kStages;
  constexpr int kCopyB = KS - 2 < 1 ? KS - 2 : 1;  // step that issues B's copies and commits
  static_assert(KS >= 2 && KS % 2 == 0, "fragment double buffer needs an even k-step count");
  static_assert(Cfg::kAsync && S >= 2, "cp.async pipeline");
  const int k_tiles = pipe.k_tiles;
  half *const smem = pipe.smem;

  cp_async_wait<S - 2>();  // k-tile 0 (see Pipeline::run for the group count)
  __syncthreads();
  FragA a[2][Cfg::kFragsM];
  FragB b[2][Cfg::kFragsN];
  int rd = 0;      // buffer of the k-tile being read
  int wr = S - 1;  // buffer the current k-tile refills
  load_frags<Cfg>(smem, wm, wn, 0, a[0], b[0]);
  for (int kt = 0; kt < k_tiles; ++kt) {
    const bool refill = kt + S - 1 < k_tiles;
    half *const ws = smem + wr * Cfg::kStageHalves;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks == KS - 1) rd = rd + 1 == S ? 0 : rd + 1;
      load_frags<Cfg>(smem + rd * Cfg::kStageHalves, wm, wn, ks == KS - 1 ? 0 : (ks + 1) * 16,
                      a[(ks + 1) % 2], b[(ks + 1) % 2]);
      if (ks == 0) pipe.load_a.load(ws, pipe.M, pipe.K, refill);
      if (ks == kCopyB) {
        pipe.load_b.load(ws + Cfg::kAHalves, pipe.K, pipe.N, refill);
        pipe.load_a.advance(pipe.K);
        pipe.load_b.advance(pipe.N);
        cp_async_commit();
        wr = wr + 1 == S ? 0 : wr + 1;
      }
      mma_frags<Cfg>(a[ks % 2], b[ks % 2], acc);
      if (ks == KS - 2) {
        cp_async_wait<S - 2>();
        __syncthreads();
      }
    }
  }
}

// v7..v9: one block per output tile (grouped raster), pipelined main loop, v4's epilogue.
template <class Cfg, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                          half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const TilePos<Cfg> at(blockIdx.x, M, N);
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn, warp = threadIdx.x / 32;

  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // col_operand_bytes()
  stage_col_operand<Cfg>(epi, ops, tn * Cfg::BN, N);  // committed with k-tile 0
  Pipeline<Cfg, true> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  pipe.start(tm * Cfg::BM, tn * Cfg::BN);
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  zero<Cfg>(acc);
  run_pipelined<Cfg>(pipe, wm, wn, acc);
  pipe.drain();
  float *stage = reinterpret_cast<float *>(smem_raw) + warp * 16 * Cfg::kLdc;
  const int row0 = tm * Cfg::BM + wm * Cfg::WM, col0 = tn * Cfg::BN + wn * Cfg::WN;
  if constexpr (Epi::kColOperand && Cfg::kParkBytes <= Cfg::kSmemBytes) {
    float *park = reinterpret_cast<float *>(smem_raw) + warp * Cfg::WM * Cfg::kLdc;
    epilogue_parked<Cfg>(epi, park, acc, ops + wn * Cfg::WN, C, M, N, row0, col0);
  } else if constexpr (Epi::kColOperand) {
    // All 128 values per lane at once, from registers: the per-chunk path would put a load
    // and a dependent chain on every 8 values, with only 2 warps per scheduler to hide them.
    apply_in_registers<Cfg>(epi, acc, ops + wn * Cfg::WN, stage);
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, EpiIdentity{});
  } else {
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, epi);
  }
}

// v11: split-K over the CTAs of a thread-block cluster (sm_90). The SPLIT CTAs of a cluster
// (consecutive blockIdx.x, rank = blockIdx.x % SPLIT) share one output tile; CTA `rank` runs
// v7's pipelined loop over k-tiles [rank*per, min((rank+1)*per, k_tiles)), per =
// ceil(k_tiles / SPLIT) (slice starts are multiples of BK, so only the globally last k-tile is
// partial, bounded by K as before; a rank past the end runs 0 k-tiles and contributes zeros).
// After drain() the pipeline smem is free: each warp parks its fp32 accumulators in a BM x
// (BN+8) tile there. cluster.sync() (release/acquire) publishes all SPLIT partial tiles; CTA
// `rank` then sums rows [rank*BM/SPLIT, (rank+1)*BM/SPLIT) of all of them in rank order
// through DSMEM and runs the epilogue functor once on the full sums. A second cluster.sync()
// keeps every CTA's smem alive until all reads of it are done. No atomics, no workspace.
// STAGE (the fused family's v19): the functor's operand is copied into shared memory after the
// pipeline's (cp.async, its own commit group before the prologue, retired by the loop's first
// wait) instead of prefetched into L2 and loaded after the loop, where a dropped prefetch left
// an HBM miss between the last k-tile and the reduction.
template <class Cfg, int SPLIT>
struct SplitCfg {
  static constexpr int kLdp = Cfg::BN + 8;  // floats per parked row (multiple of 4: WMMA ldm)
  static constexpr int kPartBytes = Cfg::BM * kLdp * 4;
  static constexpr int kRows = Cfg::BM / SPLIT;  // rows each CTA reduces
  static constexpr int kChunksPerRow = Cfg::BN / 8;
  static constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(SPLIT >= 2 && SPLIT <= 8 && Cfg::BM % SPLIT == 0, "cluster split");
  static_assert(kChunks % Cfg::kThreads == 0, "reduction split");
  static_assert(Cfg::kThreads % kChunksPerRow == 0, "a thread's chunks share their columns");
  static_assert(kPartBytes <= Cfg::kSmemBytes, "partials must fit in the pipeline smem");
  static_assert((16 * kLdp * 4) % 32 == 0, "fragment store alignment");
};

template <class Cfg, int SPLIT, class Epi, bool STAGE = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    cluster_splitk_kernel(const half *__restrict__ A, const half *__restrict__ B,
                          half *__restrict__ C, int M, int N, int K, Epi epi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using SC = SplitCfg<Cfg, SPLIT>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const TilePos<Cfg> at(blockIdx.x / SPLIT, M, N);  // the cluster's SPLIT CTAs share one tile
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn;

  // Without STAGE the functor's operand goes to L2 now and to registers after the main loop:
  // staging it into smem with the first k-tile (as the pipelined kernel does) cost this
  // kernel's fused main loop 2-6 extra integer instructions per k-tile in SASS (of 191-335).
  // STAGE's copy is a group of its own, before the prologue, so the loop does not change.
  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // STAGE: the operand
  if constexpr (STAGE) {
    stage_col_operand<Cfg>(epi, ops, tn * Cfg::BN, N);
    cp_async_commit();
  } else {
    prefetch_col_operand<Cfg>(epi, tn * Cfg::BN, N);
  }
  Pipeline<Cfg, true> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  const int per = (pipe.k_tiles + SPLIT - 1) / SPLIT;
  const int kt0 = min(rank * per, pipe.k_tiles);
  pipe.k_tiles = min(per, pipe.k_tiles - kt0);
  pipe.start_at(tm * Cfg::BM, tn * Cfg::BN, kt0 * Cfg::BK);
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  zero<Cfg>(acc);
  run_pipelined<Cfg>(pipe, wm, wn, acc);
  pipe.drain();  // all copies landed, every warp done reading the stages

  // Every chunk this thread reduces below has the same 8 columns (kThreads % kChunksPerRow
  // == 0): their operands are loaded once, here, so the L2 latency overlaps the parking.
  const int c = (threadIdx.x % SC::kChunksPerRow) * 8;
  float op[8];
  if constexpr (STAGE) {  // landed and published by drain()
#pragma unroll
    for (int i = 0; i < 8; ++i) op[i] = epi.prep(__half2float(ops[c + i]));
  } else {
    load_col_operand8(epi, tn * Cfg::BN + c, N, op);
  }

  float *part = reinterpret_cast<float *>(smem_raw);
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(part + (wm * Cfg::WM + i * 16) * SC::kLdp + wn * Cfg::WN + j * 16,
                              acc[i][j], SC::kLdp, wmma::mem_row_major);
  cluster.sync();  // every CTA's partial tile written and visible cluster-wide

  const float *src[SPLIT];
#pragma unroll
  for (int s = 0; s < SPLIT; ++s) src[s] = cluster.map_shared_rank(part, s);
  const int row_base = rank * SC::kRows;
  const int swap = chunk_swap();
#pragma unroll 2
  for (int chunk = threadIdx.x; chunk < SC::kChunks; chunk += Cfg::kThreads) {
    const int r = row_base + chunk / SC::kChunksPerRow;
    float4 lo = make_float4(0.f, 0.f, 0.f, 0.f), hi = lo;
#pragma unroll
    for (int s = 0; s < SPLIT; ++s) {  // fixed rank order: deterministic sums
      const float4 *p = reinterpret_cast<const float4 *>(src[s] + r * SC::kLdp + c);
      const float4 x = p[swap], y = p[swap ^ 1];
      const float4 l = swap ? y : x, h = swap ? x : y;
      lo.x += l.x; lo.y += l.y; lo.z += l.z; lo.w += l.w;
      hi.x += h.x; hi.y += h.y; hi.z += h.z; hi.w += h.w;
    }
    float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    if constexpr (Epi::kColOperand) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = epi.apply1(v[i], op[i]);
      store_chunk<true>(EpiIdentity{}, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    } else {
      store_chunk<true>(epi, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    }
  }
  cluster.sync();  // no CTA exits (freeing its smem) while another may still read it
#else
  __trap();  // the host launches this only on compute capability 9.0
#endif
}

// Raise a kernel's dynamic smem limit once (thread-safe static init, one per instantiation).
template <auto *KERNEL, int BYTES>
int allow_smem() {
  if constexpr (BYTES > 48 * 1024) {
    static const cudaError_t err =
        cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, BYTES);
    return static_cast<int>(err);
  } else {
    return 0;
  }
}

// 16-byte paths need 8-element rows and 16-byte aligned bases (incl. the functor's operands).
template <class Epi>
bool vec16_ok(const half *A, const half *B, const half *C, int N, int K, const Epi &epi) {
  return N % 8 == 0 && K % 8 == 0 && aligned_to(A, 16) && aligned_to(B, 16) &&
         aligned_to(C, 16) && epi.vec_ok();
}

template <class Cfg>
long long tile_count(int M, int N) {
  return rl_ceil_div(M, Cfg::BM) * rl_ceil_div(N, Cfg::BN);
}

template <class Cfg, bool VEC, class Epi>
int launch_tiled_path(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                      cudaStream_t stream) {
  constexpr auto *kernel = &tiled_wmma_kernel<Cfg, VEC, Epi>;
  const int prep = allow_smem<kernel, Cfg::kSmemBytes>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  kernel<<<static_cast<unsigned>(tiles), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(A, B, C, M, N,
                                                                                   K, epi);
  return rl_launch_status();
}

template <class Cfg, class Epi>
int launch_tiled(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  if (vec16_ok(A, B, C, N, K, epi))
    return launch_tiled_path<Cfg, true>(A, B, C, M, N, K, epi, stream);
  return launch_tiled_path<Cfg, false>(A, B, C, M, N, K, epi, stream);
}

// v7..v9: the pipelined kernel on the 16-byte path; anything else runs the generic path of
// the v4/v5 kernel with the same block tile (FALLBACK), which handles any shape.
// The pipelined kernel itself: the caller has checked vec16_ok.
template <class Cfg, class Epi>
int launch_pipelined_path(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &pipelined_wmma_kernel<Cfg, Epi>;
  constexpr int kSmem = Cfg::kSmemBytes + col_operand_bytes<Cfg, Epi>();
  static_assert(kSmem <= 227 * 1024, "smem per block");
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  kernel<<<static_cast<unsigned>(tiles), Cfg::kThreads, kSmem, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

template <class Cfg, class Fallback, class Epi>
int launch_pipelined(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                     cudaStream_t stream) {
  if (!vec16_ok(A, B, C, N, K, epi))
    return launch_tiled_path<Fallback, false>(A, B, C, M, N, K, epi, stream);
  return launch_pipelined_path<Cfg>(A, B, C, M, N, K, epi, stream);
}

template <class Cfg, bool VEC, class Epi>
int launch_persistent_path(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &persistent_wmma_kernel<Cfg, VEC, Epi>;
  constexpr int kSmem = Cfg::kPipeBytes + Cfg::kParkBytes;
  static_assert(kSmem <= 227 * 1024, "persistent smem per block");
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  const long long grid = tiles < rl_sm_count() ? tiles : rl_sm_count();  // one block per SM
  kernel<<<static_cast<unsigned>(grid), Cfg::kThreads, kSmem, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

template <class Cfg, class Epi>
int launch_persistent(const half *A, const half *B, half *C, int M, int N, int K,
                      const Epi &epi, cudaStream_t stream) {
  if (vec16_ok(A, B, C, N, K, epi))
    return launch_persistent_path<Cfg, true>(A, B, C, M, N, K, epi, stream);
  return launch_persistent_path<Cfg, false>(A, B, C, M, N, K, epi, stream);
}

// ---------------------------------------------------------------------------------------
// The variants. Numbers are the public variant arguments of both families.
//                        BM   BN  BK  WM  WN  ST  async  GM  minB
using CfgV2 = TileCfg<128, 128, 32, 64, 32, 2, false, 1, 2>;  // sync loads, 2 buffers
using CfgV3 = TileCfg<128, 128, 32, 64, 32, 4, true, 1, 2>;   // + cp.async, 4 stages
using CfgL = TileCfg<128, 256, 32, 64, 64, 4, true, 16, 1>;   // v4: 64x64 warp tiles, raster
// v5 falls back to these when CfgL's grid leaves SMs idle.
using CfgM = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
using CfgS = TileCfg<64, 64, 32, 32, 32, 4, true, 8, 4>;
using CfgXS = TileCfg<32, 32, 64, 16, 16, 6, true, 8, 2>;
// v6: CfgL made persistent; 3 stages leave room for the parked results (223.5 KiB in all).
using CfgP = TileCfg<128, 256, 32, 64, 64, 3, true, 16, 1>;
// v7..v9: the pipelined main loop (pipelined_wmma_kernel).
//   v7: v4's tile with BK=64 (half the barriers per FLOP), 4 stages = 208,896 B: sm_90 only.
//   v8: 128x128, 4 warps of 64x64, 2 blocks (8 warps) per SM, 75,776 B each.
//   v9: v4's tile and BK=32, 5 stages = 135,680 B (fits A100's 163 KB).
using CfgV7 = TileCfg<128, 256, 64, 64, 64, 4, true, 16, 1>;
using CfgV8 = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
using CfgV9 = TileCfg<128, 256, 32, 64, 64, 5, true, 16, 1>;
// v10's smaller tiles for the pipelined kernel (v7's own tile covers the large grids):
//   W:   64x128x64, 4 warps of 32x64, 4 stages = 106,496 B, 2 blocks per SM (M ~ 129..512).
//   T64: 64x32x128, 4 warps of 32x16, 4 stages = 110,592 B, 2 blocks per SM (M ~ 33..128).
//   T32: 32x32x128, 4 warps of 16x16, 6 stages = 113,664 B, 2 blocks per SM (M <= 32).
// T32/T64 are for the B stream of small M: 32 columns give N/32 blocks, and BK=128 keeps
// (S-1) x 8 KB of B in flight per block with one barrier per 128 of K.
using CfgW = TileCfg<64, 128, 64, 32, 64, 4, true, 8, 2>;
using CfgT64 = TileCfg<64, 32, 128, 32, 16, 4, true, 8, 2>;
using CfgT32 = TileCfg<32, 32, 128, 16, 16, 6, true, 8, 2>;
// v13's tall tile: v7's with the block turned on its side (256x128x64, warp grid 4 x 2, the
// same 64x64 warp tiles and 4 stages), 217,088 B: measured 2.5-3.4% faster than v7's 128x256
// at 4096^3 and 8192^3 on the H200 (docs/perf-log.md, P12).
using CfgTall = TileCfg<256, 128, 64, 64, 64, 4, true, 16, 1>;
// v15's mid-M tile for cluster split-K: 128x128x64 with 8 warps of 64x32 (two per scheduler
// where v8's 4 warps of 64x64 leave one), 4 stages = 143,360 B, one CTA per SM. Measured
// 35.0 vs 38.3 us (v8's tile split 2) at 256x4096x4096 (docs/perf-log.md, Q1).
using CfgQ = TileCfg<128, 128, 64, 64, 32, 4, true, 8, 1>;

constexpr int kVariantCount = 21;

// A grid fills the GPU when it covers at least 7/8 of one wave of SMs.
inline bool fills_gpu(long long tiles) { return tiles >= rl_sm_count() - rl_sm_count() / 8; }

// The largest of the fallback tiles that fills the GPU, else the smallest.
template <class Epi>
int launch_small(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  if (fills_gpu(tile_count<CfgM>(M, N))) return launch_tiled<CfgM>(A, B, C, M, N, K, epi, stream);
  if (fills_gpu(tile_count<CfgS>(M, N))) return launch_tiled<CfgS>(A, B, C, M, N, K, epi, stream);
  return launch_tiled<CfgXS>(A, B, C, M, N, K, epi, stream);
}

// v10: relative time of a pipelined config on an M x N output: the most tiles any SM runs
// (ceil(tiles / SMs); the 2-blocks-per-SM configs run theirs concurrently at the SM's rate)
// times the tile's area over the config's throughput per SM in % of v7's (v7 100, v8 80,
// W 65, T64 50, T32 40: v8/v7 measured, the rest estimated from smem traffic per HMMA).
// K cancels out. Small M is memory-bound, which this ignores; it still picks the thin tiles
// there because they are the only ones with enough blocks.
template <class Cfg>
long long v10_cost(int M, int N, int eff_pct) {
  const long long per_sm = rl_ceil_div(tile_count<Cfg>(M, N), rl_sm_count());
  return per_sm * (Cfg::BM * Cfg::BN * 100LL) / eff_pct;
}

// The device's opt-in smem per block, queried once (launchers run on one device per
// process, as for rl_sm_count); 0 if the query fails, which sends v10 to the smaller tiles.
inline int smem_optin_bytes() {
  static const int bytes = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
      return 0;
    return n;
  }();
  return bytes;
}

enum class V10Cfg { kV7, kV8, kW, kT64, kT32, kTall };

// The cheapest config, ties to the larger tile (checked in this order). tall (v13): v13's
// 256x128 tile is a candidate too, at its measured 103% of v7's rate per SM.
inline V10Cfg v10_choose(int M, int N, bool tall = false) {
  V10Cfg best = V10Cfg::kV7;
  long long cost = v10_cost<CfgV7>(M, N, 100);
  const auto consider = [&](V10Cfg c, long long v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  if (tall && smem_optin_bytes() >= CfgTall::kSmemBytes)
    consider(V10Cfg::kTall, v10_cost<CfgTall>(M, N, 103));
  consider(V10Cfg::kV8, v10_cost<CfgV8>(M, N, 80));
  consider(V10Cfg::kW, v10_cost<CfgW>(M, N, 65));
  consider(V10Cfg::kT64, v10_cost<CfgT64>(M, N, 50));
  consider(V10Cfg::kT32, v10_cost<CfgT32>(M, N, 40));
  return best;
}

// v10 ("best"): the pipelined kernel with the config v10_choose picks on the 16-byte path;
// anything else runs v5's choice of the verified generic tiled kernels.
template <class Epi>
int launch_v10(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
               cudaStream_t stream, bool tall = false) {
  if (!vec16_ok(A, B, C, N, K, epi)) {
    if (fills_gpu(tile_count<CfgL>(M, N)))
      return launch_tiled_path<CfgL, false>(A, B, C, M, N, K, epi, stream);
    return launch_small(A, B, C, M, N, K, epi, stream);  // vec16_ok is false: generic path
  }
  switch (v10_choose(M, N, tall)) {
    case V10Cfg::kTall: return launch_pipelined_path<CfgTall>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kV7:
      // v7's 208,896 B exceed A100's 163 KB: v9's tile there (same tile, BK=32, 5 stages).
      if (smem_optin_bytes() < CfgV7::kSmemBytes)
        return launch_pipelined_path<CfgV9>(A, B, C, M, N, K, epi, stream);
      return launch_pipelined_path<CfgV7>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kV8: return launch_pipelined_path<CfgV8>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kW: return launch_pipelined_path<CfgW>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kT64: return launch_pipelined_path<CfgT64>(A, B, C, M, N, K, epi, stream);
    default: return launch_pipelined_path<CfgT32>(A, B, C, M, N, K, epi, stream);
  }
}

// ---------------------------------------------------------------------------------------
// v11: v10 plus cluster split-K (cluster_splitk_kernel) where v10's grid leaves SMs idle.

// Whether the device is compute capability 9.0 (the only one the sm_90a cluster code runs
// on; elsewhere the compute_80 PTX would JIT the trapping stub), queried once.
inline bool device_is_sm90() {
  static const bool yes = [] {
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
      return false;
    return major == 9 && minor == 0;
  }();
  return yes;
}

template <class Cfg, int SPLIT, class Epi>
cudaLaunchConfig_t cluster_launch_config(unsigned grid, cudaStream_t stream,
                                         cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(grid, 1, 1);
  lc.blockDim = dim3(Cfg::kThreads, 1, 1);
  lc.dynamicSmemBytes = Cfg::kSmemBytes;
  lc.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = SPLIT;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  lc.attrs = attr;
  lc.numAttrs = 1;
  return lc;
}

// CTAs of this cluster kernel resident at once on the device (max active clusters x SPLIT),
// queried once per instantiation; 0 (cluster path never chosen) if not sm_90 or on error.
template <class Cfg, int SPLIT, class Epi>
int cluster_slots() {
  static const int slots = [] {
    if (!device_is_sm90()) return 0;
    constexpr auto *kernel = &cluster_splitk_kernel<Cfg, SPLIT, Epi>;
    if (allow_smem<kernel, Cfg::kSmemBytes>() != 0) return 0;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t lc =
        cluster_launch_config<Cfg, SPLIT, Epi>(SPLIT, static_cast<cudaStream_t>(0), attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &lc) != cudaSuccess) {
      cudaGetLastError();  // not sticky; do not leave it for the next launch check
      return 0;
    }
    return clusters * SPLIT;
  }();
  return slots;
}

// stage: the kernel that stages the functor's operand in shared memory (STAGE; only a functor
// with a column operand has one to stage).
template <class Cfg, int SPLIT, class Epi, bool STAGE>
int launch_cluster_splitk_as(const half *A, const half *B, half *C, int M, int N, int K,
                             const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &cluster_splitk_kernel<Cfg, SPLIT, Epi, STAGE>;
  constexpr int kSmem = Cfg::kSmemBytes + (STAGE ? col_operand_bytes<Cfg, Epi>() : 0);
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long grid = tile_count<Cfg>(M, N) * SPLIT;  // a multiple of the cluster size
  RL_REQUIRE(grid <= 0x7fffffffLL);
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t lc =
      cluster_launch_config<Cfg, SPLIT, Epi>(static_cast<unsigned>(grid), stream, attr);
  lc.dynamicSmemBytes = kSmem;
  const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, A, B, C, M, N, K, epi);
  if (err != cudaSuccess) return static_cast<int>(err);
  return rl_launch_status();
}
template <class Cfg, int SPLIT, class Epi>
int launch_cluster_splitk(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream, bool stage = false) {
  if constexpr (Epi::kColOperand)
    if (stage)
      return launch_cluster_splitk_as<Cfg, SPLIT, Epi, true>(A, B, C, M, N, K, epi, stream);
  return launch_cluster_splitk_as<Cfg, SPLIT, Epi, false>(A, B, C, M, N, K, epi, stream);
}

// Relative time of a split config in v10's units times K: as v10_cost with tiles x SPLIT
// CTAs (ceil(CTAs / SMs) per SM; only considered when all CTAs are resident at once, so there
// is no tail of unscheduled clusters), each running ceil(k_tiles / SPLIT) k-tiles plus
// kReduceK of K-equivalent for parking, the DSMEM reduction and the two cluster barriers.
// v10's configs cost v10_cost x K in the same units.
constexpr int kSplitMinK = 1024, kReduceK = 128;

template <class Cfg, int SPLIT, class Epi>
double split_cost(int M, int N, int K, int eff_pct) {
  const long long ctas = tile_count<Cfg>(M, N) * SPLIT;
  if (K < kSplitMinK || ctas > cluster_slots<Cfg, SPLIT, Epi>()) return 1e300;
  const long long slice = rl_ceil_div(rl_ceil_div(K, Cfg::BK), SPLIT) * Cfg::BK;
  const long long per_sm = rl_ceil_div(ctas, rl_sm_count());
  return static_cast<double>(per_sm * Cfg::BM * Cfg::BN) * 100.0 / eff_pct *
         static_cast<double>(slice + kReduceK);
}

template <class Cfg>
double v10_cost_k(int M, int N, int K, int eff_pct) {
  return static_cast<double>(v10_cost<Cfg>(M, N, eff_pct)) * K;
}

enum class V11Split { kNone, kV7x2, kV7x4, kWx2, kWx4, kV8x2, kQx2 };

// The cheapest split config if it beats v10's choice (ties keep v10), else kNone. with_v8
// (v12): 128x128 tiles split 2 ways are candidates too; with_q (v15): v15's 128x128 tile of 8
// warps split 2 ways, at its measured 88% of v7's rate per SM (v8's tile: 80).
template <class Epi>
V11Split v11_choose(int M, int N, int K, bool with_v8, bool tall, bool with_q) {
  if (K < kSplitMinK || !device_is_sm90()) return V11Split::kNone;
  double base = 0;
  switch (v10_choose(M, N, tall)) {
    case V10Cfg::kTall: base = v10_cost_k<CfgTall>(M, N, K, 103); break;
    case V10Cfg::kV7: base = v10_cost_k<CfgV7>(M, N, K, 100); break;
    case V10Cfg::kV8: base = v10_cost_k<CfgV8>(M, N, K, 80); break;
    case V10Cfg::kW: base = v10_cost_k<CfgW>(M, N, K, 65); break;
    case V10Cfg::kT64: base = v10_cost_k<CfgT64>(M, N, K, 50); break;
    default: base = v10_cost_k<CfgT32>(M, N, K, 40); break;
  }
  V11Split best = V11Split::kNone;
  double cost = base;
  const auto consider = [&](V11Split c, double v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  consider(V11Split::kV7x2, split_cost<CfgV7, 2, Epi>(M, N, K, 100));
  consider(V11Split::kV7x4, split_cost<CfgV7, 4, Epi>(M, N, K, 100));
  consider(V11Split::kWx2, split_cost<CfgW, 2, Epi>(M, N, K, 65));
  consider(V11Split::kWx4, split_cost<CfgW, 4, Epi>(M, N, K, 65));
  if (with_v8) consider(V11Split::kV8x2, split_cost<CfgV8, 2, Epi>(M, N, K, 80));
  if (with_q) consider(V11Split::kQx2, split_cost<CfgQ, 2, Epi>(M, N, K, 88));
  return best;
}

// v11: v10, except that on compute capability 9.0 with the 16-byte path a cluster split-K
// config runs where v11_choose finds one cheaper. v12: v11 with the 128x128 split-2
// candidate (M ~ 256 at N = K = 4096: 64 tiles become 128 CTAs of 8 warps' worth of work).
// v13: v12 with the 256x128 tile (CfgTall) among v10's candidates. v15: v13 with CfgQ split
// 2 ways among the split candidates. stage (v19): CfgQ's split kernel stages the functor's
// operand in shared memory (measured 4% faster fused at 256x4096x4096); on v7's tile (253
// registers) the staging measured 3% slower at 512x4096x4096 and on the 64x128 tile no
// different at 128x4096x4096 (docs/perf-log.md, S2), so those keep the L2 prefetch.
template <class Epi>
int launch_v11(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
               cudaStream_t stream, bool with_v8, bool tall, bool with_q = false,
               bool stage = false) {
  if (!vec16_ok(A, B, C, N, K, epi)) return launch_v10(A, B, C, M, N, K, epi, stream);
  switch (v11_choose<Epi>(M, N, K, with_v8, tall, with_q)) {
    case V11Split::kV7x2: return launch_cluster_splitk<CfgV7, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kV7x4: return launch_cluster_splitk<CfgV7, 4>(A, B, C, M, N, K, epi, stream);
    case V11Split::kWx2: return launch_cluster_splitk<CfgW, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kWx4: return launch_cluster_splitk<CfgW, 4>(A, B, C, M, N, K, epi, stream);
    case V11Split::kV8x2: return launch_cluster_splitk<CfgV8, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kQx2:
      return launch_cluster_splitk<CfgQ, 2>(A, B, C, M, N, K, epi, stream, stage);
    default: return launch_v10(A, B, C, M, N, K, epi, stream, tall);
  }
}

// v14 and later, after the caller's checks of the arguments.
template <class Epi>
int launch_v14_on(int variant, const half *a, const half *b, half *c, int M, int N, int K,
                  const Epi &epi, cudaStream_t s) {
  // v14: M <= 16 on the GEMV's slabs where they suit the shape, else v13. v15: the same,
  // with v15's split candidate. v16: v15, with 9..64 rows on the GEMV's TMA slabs where
  // they suit the shape (rl_gemv_tma_launch). v17: v16 with the slabs' clusters pushing
  // their partial sums (GEMV v13). v18: v17 with 2..8 rows on GEMV v14's kernel. v19:
  // v18 with the functor's operand (the fused family's bias) staged in shared memory by
  // the TMA slabs and CfgQ's cluster split-K kernel.
  // Only a functor with a column operand has something to stage: the plain family's v19
  // launches v18's kernels.
  // v20 launches v19's kernels; the fused family's functor changes (the parked epilogue as a
  // loop, the erf form). v21: v20 with the slabs' clusters sending their partial sums by
  // st.async, counted on the peer's mbarrier, and one row in a cluster staging x first
  // (GEMV v15).
  bool launched = false;
  int st = 0;
  const int push = variant >= 21 ? 2 : variant >= 17 ? 1 : 0;
  const bool stage = Epi::kColOperand;
  if (variant >= 16)
    st = rl_gemv_tma_launch(a, b, c, M, N, K, epi.slab_epi(), push, s, &launched,
                            stage && variant >= 19);
  if (!launched)
    st = rl_gemv_slab_launch(a, b, c, M, N, K, epi.slab_epi(), push, s, &launched,
                             variant >= 18);
  return launched ? st
                  : launch_v11(a, b, c, M, N, K, epi, s, true, true, variant >= 15,
                               stage && variant >= 19);
}

inline bool gemm_args_ok(const void *A, const void *B, const void *C, int M, int N, int K) {
  return A != nullptr && B != nullptr && C != nullptr && M >= 1 && N >= 1 && K >= 1;
}

// Checks shared by both families, then the variant's launch.
template <class Epi>
int launch_variant(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                   const Epi &epi, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= kVariantCount);
  RL_REQUIRE(gemm_args_ok(A, B, C, M, N, K));
  const half *a = static_cast<const half *>(A);
  const half *b = static_cast<const half *>(B);
  half *c = static_cast<half *>(C);
  cudaStream_t s = rl_stream(stream);
  switch (variant) {
    case 1: return launch_simple(a, b, c, M, N, K, epi, s);
    case 2: return launch_tiled<CfgV2>(a, b, c, M, N, K, epi, s);
    case 3: return launch_tiled<CfgV3>(a, b, c, M, N, K, epi, s);
    case 4: return launch_tiled<CfgL>(a, b, c, M, N, K, epi, s);
    case 5:
      if (fills_gpu(tile_count<CfgL>(M, N))) return launch_tiled<CfgL>(a, b, c, M, N, K, epi, s);
      return launch_small(a, b, c, M, N, K, epi, s);
    case 6:
      if (fills_gpu(tile_count<CfgP>(M, N)))
        return launch_persistent<CfgP>(a, b, c, M, N, K, epi, s);
      return launch_small(a, b, c, M, N, K, epi, s);
    case 7: return launch_pipelined<CfgV7, CfgL>(a, b, c, M, N, K, epi, s);
    case 8: return launch_pipelined<CfgV8, CfgM>(a, b, c, M, N, K, epi, s);
    case 9: return launch_pipelined<CfgV9, CfgL>(a, b, c, M, N, K, epi, s);
    case 10: return launch_v10(a, b, c, M, N, K, epi, s);
    case 11: return launch_v11(a, b, c, M, N, K, epi, s, false, false);
    case 12: return launch_v11(a, b, c, M, N, K, epi, s, true, false);
    case 13: return launch_v11(a, b, c, M, N, K, epi, s, true, true);
    default: return launch_v14_on(variant, a, b, c, M, N, K, epi, s);
  }
}

// The same for a functor that only the newest variants take (the fused family's v20), so that
// the older variants' kernels are not instantiated for it.
template <class Epi>
int launch_variant_v14_on(int variant, const void *A, const void *B, void *C, int M, int N,
                          int K, const Epi &epi, void *stream) {
  RL_REQUIRE(variant >= 14 && variant <= kVariantCount);
  RL_REQUIRE(gemm_args_ok(A, B, C, M, N, K));
  return launch_v14_on(variant, static_cast<const half *>(A), static_cast<const half *>(B),
                       static_cast<half *>(C), M, N, K, epi, rl_stream(stream));
}

}  // namespace rlg
