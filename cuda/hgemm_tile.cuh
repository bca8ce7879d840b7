// Shared WMMA GEMM machinery for hgemm.cu (plain C = A.B) and gemm_gelu.cu (fused epilogue):
// the tile configs, loaders, fragment steps, epilogues and the cp.async pipeline. The kernels
// built on it are in hgemm_kernels.cuh, their launchers and the variants' dispatch in
// hgemm_dispatch.cuh (what the two .cu files include).
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

// A launch of `grid` blocks of `threads` in clusters of `cluster` along x (attr[0] holds the
// cluster attribute; the config points at it).
inline cudaLaunchConfig_t cluster_config(unsigned grid, int threads, int smem, int cluster,
                                         cudaStream_t stream, cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(grid, 1, 1);
  lc.blockDim = dim3(threads, 1, 1);
  lc.dynamicSmemBytes = smem;
  lc.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  lc.attrs = attr;
  lc.numAttrs = 1;
  return lc;
}

// CTAs of a cluster kernel resident at once (max active clusters x cluster size) under the
// config `lc`; 0 on error (the error cleared: it is not sticky).
template <class Kernel>
int resident_cluster_ctas(Kernel kernel, const cudaLaunchConfig_t &lc, int cluster) {
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &lc) != cudaSuccess) {
    cudaGetLastError();  // do not leave it for the next launch check
    return 0;
  }
  return clusters * cluster;
}

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
// The same without the predicate, to a shared-space address (v26's lean loop: whole tiles).
__device__ __forceinline__ void cp_async16_whole(unsigned smem_dst, const half *gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_dst), "l"(gmem_src)
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

// How many row parts a functor's parked epilogue parks at a time (Epi::kParkParts; 1 without).
template <class Epi, class = void>
struct ParkParts {
  static constexpr int value = 1;
};
template <class Epi>
struct ParkParts<Epi, std::void_t<decltype(Epi::kParkParts)>> {
  static constexpr int value = Epi::kParkParts;
};
// Whether those parts run as one loop over every chunk (Epi::kParkRolled; false without it; the
// probe epi_parts only): one copy of the chunk code, the next part parked where a part ends.
// Run PR: no faster than the whole tile, where the unrolled parts gain 0.5-1.5 us at 2048³.
template <class Epi, class = void>
struct ParkRolled {
  static constexpr bool value = false;
};
template <class Epi>
struct ParkRolled<Epi, std::void_t<decltype(Epi::kParkRolled)>> {
  static constexpr bool value = Epi::kParkRolled;
};

// Parks fragment rows I0 .. I1 - 1 of a warp's accumulators in fp32 at `park` (kLdc floats a row).
template <class Cfg, int I0, int I1>
__device__ __forceinline__ void park_fragments(float *park,
                                               FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
#pragma unroll
  for (int i = I0; i < I1; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(park + i * 16 * Cfg::kLdc + j * 16, acc[i][j], Cfg::kLdc,
                              wmma::mem_row_major);
}

// G of a lane's parked chunks from q0 (chunk q: lane + 32 q of the warp tile, rows 32 /
// kChunksPerRow a q) of a warp tile wholly inside C, through the prepared functor f and out to
// C: no guard per chunk, so that ptxas may interleave the chains of the G chunks (a guard per
// chunk made it finish one before the next).
template <class Cfg, int G, class Epi>
__device__ __forceinline__ void emit_parked_batch(const EpiPrepared<Epi> &f, const float *park,
                                                  int lane, int c, int q0, half *C, int N,
                                                  int row0, int col0) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  float v[G][8];  // G chunks in flight: loads, then all 8 G chains, then the stores
#pragma unroll
  for (int g = 0; g < G; ++g)
    load_staged8<Cfg>(park, (lane + 32 * (q0 + g)) / kChunksPerRow, c, chunk_swap(), v[g]);
#pragma unroll
  for (int g = 0; g < G; ++g) f.template apply<true>(v[g], 0, 0);
#pragma unroll
  for (int g = 0; g < G; ++g)
    store8(C + static_cast<size_t>(row0 + (lane + 32 * (q0 + g)) / kChunksPerRow) * N + col0 + c,
           v[g]);
}

// Chunks per batch: 4 where the count allows.
template <int Q>
constexpr int parked_batch() {
  return Q % 4 == 0 ? 4 : Q % 2 == 0 ? 2 : 1;
}

// A lane's parked chunks Q0 .. Q1 - 1 of a warp tile wholly inside C, a batch at a time.
template <class Cfg, int Q0, int Q1, class Epi>
__device__ __forceinline__ void emit_parked_chunks(const EpiPrepared<Epi> &f, const float *park,
                                                   int lane, int c, half *C, int N, int row0,
                                                   int col0) {
  constexpr int G = parked_batch<Q1 - Q0>();
  if constexpr (Epi::kRolledEpilogue) {
    // One batch of code, run (Q1 - Q0) / G times: unrolled, a functor of ~14 instructions per
    // value made a straight line of ~2k instructions that every CTA runs once, with no reuse
    // from the instruction caches (GEMM+GELU v20; docs/perf-log.md).
#pragma unroll 1
    for (int q0 = Q0; q0 < Q1; q0 += G)
      emit_parked_batch<Cfg, G>(f, park, lane, c, q0, C, N, row0, col0);
  } else {
#pragma unroll
    for (int q0 = Q0; q0 < Q1; q0 += G)
      emit_parked_batch<Cfg, G>(f, park, lane, c, q0, C, N, row0, col0);
  }
}

// Parts P0 .. P - 1 of a warp tile inside C parked and emitted one after another: part p's
// global stores drain while part p + 1 is parked (the whole-tile form, P = 1, parks every
// fragment before its first store).
template <class Cfg, int P, int P0, class Epi>
__device__ __forceinline__ void emit_parked_parts(const EpiPrepared<Epi> &f, float *park,
                                                  FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                  int lane, int c, half *C, int N, int row0,
                                                  int col0) {
  constexpr int FP = Cfg::kFragsM / P, QP = Cfg::WM * (Cfg::WN / 8) / 32 / P;
  static_assert(Cfg::kFragsM % P == 0, "whole fragment rows per part");
  park_fragments<Cfg, P0 * FP, (P0 + 1) * FP>(park, acc);
  __syncwarp();
  emit_parked_chunks<Cfg, P0 * QP, (P0 + 1) * QP>(f, park, lane, c, C, N, row0, col0);
  if constexpr (P0 + 1 < P)
    emit_parked_parts<Cfg, P, P0 + 1>(f, park, acc, lane, c, C, N, row0, col0);
}

// Part p (p >= I, known only at run time) of P parked: the fragment indices stay constants.
template <class Cfg, int P, int I>
__device__ __forceinline__ void park_part(int p, float *park,
                                          FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  constexpr int FP = Cfg::kFragsM / P;
  if (p == I)
    park_fragments<Cfg, I * FP, (I + 1) * FP>(park, acc);
  else if constexpr (I + 1 < P)
    park_part<Cfg, P, I + 1>(p, park, acc);
}

// The same P parts as one rolled loop over the lane's chunks: one copy of the batch code
// (emit_parked_parts has one per part), part p + 1 parked where part p's chunks end.
template <class Cfg, int P, class Epi>
__device__ __forceinline__ void emit_parked_parts_rolled(const EpiPrepared<Epi> &f, float *park,
                                                         FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                         int lane, int c, half *C, int N,
                                                         int row0, int col0) {
  constexpr int Q = Cfg::WM * (Cfg::WN / 8) / 32, QP = Q / P, G = parked_batch<QP>();
  static_assert(Cfg::kFragsM % P == 0 && QP % G == 0, "whole fragment rows and batches per part");
  park_fragments<Cfg, 0, Cfg::kFragsM / P>(park, acc);
  __syncwarp();
#pragma unroll 1
  for (int q0 = 0; q0 < Q; q0 += G) {
    if (q0 != 0 && q0 % QP == 0) {
      park_part<Cfg, P, 1>(q0 / QP, park, acc);
      __syncwarp();
    }
    emit_parked_batch<Cfg, G>(f, park, lane, c, q0, C, N, row0, col0);
  }
}

// Parked epilogue for a functor with a column operand (the fused bias+GELU), where the
// pipeline smem holds every warp's whole WM x WN tile (kParkBytes): the warp first parks all
// its accumulators in fp32, then applies the functor chunk by chunk on the way out, with the
// accumulators' ~128 registers free for the chains of 4 chunks at a time (applied in
// registers, at ~254 registers, ptxas has little room to overlap them). At 2048^3, where
// one wave of tiles leaves the epilogue exposed, fused / plain came to 1.033-1.035 (E2; the
// register form: 1.036 in report H, a per-strip form 1.038-1.042 in E1; docs/perf-log.md);
// of the ~1.5 us over the plain GEMM there, the tanh costs nothing measurable, the FP32 chain
// ~0.6 us and this path's park and reload ~1 us, the bias nothing (probe epi_parts, run EP). A
// lane's chunks all have the same 8 columns (32 lanes cover whole rows), so its operand is
// read and prepared once. `park` is the warp's WM x kLdc floats.
// Epi::kParkParts (GEMM+GELU v23: 4; 1 without it): a warp tile inside C is parked in that many
// row parts, each emitted before the next is parked: 0.3-0.9 us off fused at 2048³ (run PP).
template <class Cfg, class Epi>
__device__ __forceinline__ void epilogue_parked(const Epi &epi, float *park,
                                                FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                const half *ops, half *C, int M, int N,
                                                int row0, int col0) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  constexpr int kChunks = Cfg::WM * kChunksPerRow;
  static_assert(32 % kChunksPerRow == 0, "a lane's chunks share their 8 columns");
  constexpr int P = ParkParts<Epi>::value;  // whole fragment rows per part, else one part
  const int lane = threadIdx.x % 32, c = (lane % kChunksPerRow) * 8;
  const bool whole = row0 + Cfg::WM <= M && col0 + Cfg::WN <= N;
  if constexpr (P > 1 && Cfg::kFragsM % P == 0) {
    if (whole) {
      EpiPrepared<Epi> f{epi, {}};
#pragma unroll
      for (int q = 0; q < 8; ++q) f.op[q] = epi.prep(__half2float(ops[c + q]));
      if constexpr (ParkRolled<Epi>::value)
        emit_parked_parts_rolled<Cfg, P>(f, park, acc, lane, c, C, N, row0, col0);
      else
        emit_parked_parts<Cfg, P, 0>(f, park, acc, lane, c, C, N, row0, col0);
      return;
    }
  }
  park_fragments<Cfg, 0, Cfg::kFragsM>(park, acc);
  __syncwarp();
  EpiPrepared<Epi> f{epi, {}};
#pragma unroll
  for (int q = 0; q < 8; ++q) f.op[q] = epi.prep(__half2float(ops[c + q]));
  if (whole) {
    emit_parked_chunks<Cfg, 0, kChunks / 32>(f, park, lane, c, C, N, row0, col0);
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

}  // namespace rlg
