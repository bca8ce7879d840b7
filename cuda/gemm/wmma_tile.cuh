// The WMMA tile machinery of the GEMM family (every HGEMM step runs WMMA tiles wherever no slab
// or wgmma path applies): fragments, a block tile's geometry (TileCfg), its place in the grid,
// and one k-step's fragment loads and MMAs.
//
// Row-major fp16 A[M x K] . B[K x N] -> C[M x N] with fp32 accumulation on Tensor Cores through
// nvcuda::wmma (16x16x16 half fragments). Two load paths per kernel (template VEC):
//   VEC   (N % 8 == 0, K % 8 == 0, A/B/C 16-byte aligned): 16-byte chunks; a chunk is wholly
//         inside or wholly outside the matrix, outside ones are zero-filled.
//   !VEC  (anything else): element loads with bounds checks, zero-filled outside.
// Stores are always guarded by row < M and col < N.
#pragma once
#include <cooperative_groups.h>
#include <mma.h>

#include <type_traits>

#include "common.cuh"

namespace rlg {
using namespace nvcuda;

// T: the inputs' element type; every WMMA step runs half, v1's kernel also bf16 (sm_80 on).
template <class T>
using FragAOf = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
template <class T>
using FragBOf = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major>;
using FragA = FragAOf<half>;
using FragB = FragBOf<half>;
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

// ---------------------------------------------------------------------------------------
// Block tile BM x BN (v2 on) staged through shared memory in BK-deep k-tiles, STAGES buffers.
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
  // A warp's whole WM x WN result parked in fp32 (same row padding): the fused epilogue parks
  // it in the pipeline smem where it fits (epilogue_parked.cuh).
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

template <class Cfg>
__device__ __forceinline__ void zero(FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
}

// ---------------------------------------------------------------------------------------
// Host side.

// The arguments every GEMM launcher checks before anything is launched.
inline bool gemm_args_ok(const void *A, const void *B, const void *C, int M, int N, int K) {
  return A != nullptr && B != nullptr && C != nullptr && M >= 1 && N >= 1 && K >= 1;
}

template <class Cfg>
long long tile_count(int M, int N) {
  return rl_ceil_div(M, Cfg::BM) * rl_ceil_div(N, Cfg::BN);
}

// 16-byte paths need 8-element rows and 16-byte aligned bases (incl. the functor's operands);
// T: the 2-byte element (half; bf16 on the paths of gemm/bf16_paths.cuh).
template <class Epi, class T>
bool vec16_ok(const T *A, const T *B, const T *C, int N, int K, const Epi &epi) {
  return N % 8 == 0 && K % 8 == 0 && aligned_to(A, 16) && aligned_to(B, 16) &&
         aligned_to(C, 16) && epi.vec_ok();
}

// A grid fills the GPU when it covers at least 7/8 of one wave of SMs.
inline bool fills_gpu(long long tiles) { return tiles >= rl_sm_count() - rl_sm_count() / 8; }

}  // namespace rlg
