// HGEMM v9 "wgmma_mid_m": v8, with 65..512 rows on a wgmma tile where v8 would split K over a
// cluster to fill the GPU: Hopper's warpgroup MMA on a 128x64 output tile over all of K, fed by
// TMA through an 8-stage ring. Not WMMA. At these shapes the WMMA loops' fragment traffic
// through registers keeps them at ~2/3 of the WMMA ceiling and the split's reduction costs
// more (docs/perf-log.md, HGEMM, nineteenth and twentieth sessions: cuBLAS runs this kind of
// tile there). The large squares stay WMMA, and so does M <= 64, where half of the tile's 128
// rows would be empty (64x8192x8192: 65.5 us on the tile against 51.7 on v8's kernels).
//
// Measured on the H200 (docs/perf-log.md, HGEMM old v22, WG1: interleaved, one launch, µs,
// v8's kernels -> this tile): 256 x 4096² 34.9 -> 25.3 (cuBLAS 24.8 in the same group), 128
// rows 29.0 -> 25.2, 192 rows 34.4 -> 32.0, 512 rows 53.6 -> 46.5, 256x4096x8192 59.4 -> 44.6;
// report Z's decode sweep: 128 x 8192² 66.4 -> 42.9 (cuBLAS 43.7).
//
// Layout: warpgroup 0 is the producer (its thread 0 issues the TMA copies); warpgroups 1 and 2
// each own 64 rows of the tile and run m64n64k16 wgmmas with both operands read from shared
// memory through descriptors. A [M x K] row-major is K-major (boxes of 64 k x 128 rows); B
// [K x N] row-major is N-major, read transposed (boxes of 64 n x 64 k); both 128-byte swizzled,
// so a stage is rows of 128 bytes in 1024-byte swizzle atoms. Edges (M, N, K off the tile) are
// zero-filled by TMA and guarded at the store; the host requires N % 8 == 0, K % 8 == 0 and
// 16-byte aligned bases (the tensor maps' strides and addresses).
#pragma once
#include "gemm/hgemm_08_gemv_slabs.cuh"
#include "gemm/wgmma.cuh"

namespace rlg {

constexpr int kWgBM = 128, kWgBN = 64, kWgBK = kWgmmaKTile, kWgStages = 8;
// The tile runs at 64 < M <= 512 only (the mid-M shapes).
constexpr int kWgMinRows = 64, kWgMaxRows = 512;
constexpr int kWgThreads = 384;                 // producer warpgroup + 2 consumer warpgroups
constexpr int kWgConsumerWarps = 8;             // each releases a stage once its wgmmas are done
constexpr int kWgABytes = kWgBM * kWgBK * 2;    // 16 KB: 128 rows of 128 bytes
constexpr int kWgBBytes = kWgBK * kWgBN * 2;    // 8 KB: 64 k-rows of 128 bytes
constexpr int kWgStageBytes = kWgABytes + kWgBBytes;
constexpr int kWgSmem = kWgStages * kWgStageBytes + 1024;  // + slack to align to 1024 bytes


// Block b computes the tile (b % m_tiles, b / m_tiles): the M-tiles that share a B column
// block run side by side, so B is read from HBM once and from L2 by the others. T: the element
// type of A, B, C and the functor's operands (half; bf16 as the bf16 paths' tile for every
// shape the warp-specialized kernel leaves, gemm/bf16_paths.cuh).
template <class Epi, class T = half>
__global__ void __launch_bounds__(kWgThreads, 1)
    wgmma_tile_kernel(const __grid_constant__ CUtensorMap amap,
                      const __grid_constant__ CUtensorMap bmap, T *C, int M, int N, int K,
                      Epi epi) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char wg_smem_raw[];
  // The swizzle pattern repeats every 1024 bytes: stages start on 1024-byte boundaries.
  unsigned char *ring = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(wg_smem_raw) + 1023) & ~uintptr_t(1023));
  __shared__ unsigned long long full[kWgStages], empty[kWgStages];
  const int m_tiles = (M + kWgBM - 1) / kWgBM;
  const int m0 = (blockIdx.x % m_tiles) * kWgBM, n0 = (blockIdx.x / m_tiles) * kWgBN;
  const int k_tiles = (K + kWgBK - 1) / kWgBK;
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int i = 0; i < kWgStages; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kWgConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();  // the last block-wide barrier: the roles below never meet again
  if (wg == 0) {
    // Producer: k-tile kt into stage kt % S once every consumer warp released its last use.
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % kWgStages;
        if (kt >= kWgStages) mbar_wait(&empty[s], (kt / kWgStages - 1) & 1);
        unsigned char *st = ring + s * kWgStageBytes;
        mbar_expect_tx(&full[s], kWgStageBytes);
        tma_load_2d(st, &amap, kt * kWgBK, m0, &full[s]);
        tma_load_2d(st + kWgABytes, &bmap, n0, kt * kWgBK, &full[s]);
      }
    }
    return;
  }
  const int cw = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  // This lane's 16 columns: n0 + 8j + 2(lane % 4) + {0, 1}, j = 0..7 (the accumulator layout).
  const int col_l = 2 * (lane % 4);
  float op[16] = {};  // the functor's column operand, prepped (0 without one), loaded early
  if constexpr (Epi::kColOperand) {
    using Pair = typename Elem<T>::Pair;
    const T *src = epi.col_operand();
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = n0 + 8 * j + col_l;
      const float2 f = col < N
                           ? Elem<T>::to_float2(__ldg(reinterpret_cast<const Pair *>(src + col)))
                           : make_float2(0.0f, 0.0f);
      op[2 * j] = epi.prep(f.x);
      op[2 * j + 1] = epi.prep(f.y);
    }
  }
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kWgStages;
    mbar_wait(&full[s], (kt / kWgStages) & 1);
    const unsigned char *a = ring + s * kWgStageBytes + cw * (64 * 128);
    const unsigned char *b = ring + s * kWgStageBytes + kWgABytes;
    wgmma_ktile_64x64<T>(d, a, b);
    wg_wait<1>();  // the previous k-tile's wgmmas are done: release its stage
    if (kt > 0 && lane == 0) mbar_arrive(&empty[(kt - 1) % kWgStages]);
  }
  wg_wait<0>();
  wg_hold(d);
  // d[4j + q] is row 16 warp + lane / 4 (+8 for q >= 2), column 8j + col_l + (q & 1).
  const int row0 = m0 + 64 * cw + 16 * warp + lane / 4;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = n0 + 8 * j + col_l;
    if (col >= N) continue;  // N % 8 == 0: col + 1 < N too
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row >= M) continue;
      const float v0 = epi.apply1(d[4 * j + 2 * h], op[2 * j], row, col);
      const float v1 = epi.apply1(d[4 * j + 2 * h + 1], op[2 * j + 1], row, col + 1);
      *reinterpret_cast<typename Elem<T>::Pair *>(C + static_cast<size_t>(row) * N + col) =
          Elem<T>::from_floats(v0, v1);
    }
  }
#else
  __trap();  // never launched: the host runs it on compute capability 9.0 with sm_90a code only
#endif
}

// The wgmma tile's launch (T: half, or bf16 from gemm/bf16_paths.cuh); *launched false (and
// nothing run) when a tensor map cannot be made. The caller has checked vec16_ok and
// wgmma_capable.
template <class Epi, class T>
int launch_wgmma(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream, bool *launched) {
  *launched = false;
  constexpr auto *kernel = &wgmma_tile_kernel<Epi, T>;
  const long long blocks = rl_ceil_div(M, kWgBM) * rl_ceil_div(N, kWgBN);
  if (blocks > 0x7fffffffLL) return 0;
  CUtensorMap am, bm;
  if (!rl_tma::tensor_map(&am, A, M, K, kWgBK, kWgBM, Elem<T>::kTma) ||
      !rl_tma::tensor_map(&bm, B, K, N, kWgBN, kWgBK, Elem<T>::kTma))
    return 0;
  const int prep = allow_smem<kernel, kWgSmem>();
  if (prep != 0) return prep;
  *launched = true;
  kernel<<<static_cast<unsigned>(blocks), kWgThreads, kWgSmem, stream>>>(am, bm, C, M, N, K, epi);
  return rl_launch_status();
}

// The wgmma tile where v8 would split K at mid M; *launched false: it did not apply.
template <class Epi>
int try_wgmma_mid_m(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                    cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M <= kWgMinRows || M > kWgMaxRows || !vec16_ok(A, B, C, N, K, epi) || !wgmma_capable() ||
      choose_split<Epi>(M, N, K) == SplitChoice::kNone)
    return 0;
  return launch_wgmma(A, B, C, M, N, K, epi, stream, launched);
}

template <class Epi>
int launch_wgmma_mid_m(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream) {
  return path_or([&](bool *done) { return try_wgmma_mid_m(A, B, C, M, N, K, epi, stream, done); },
                 [&] { return launch_gemv_slabs(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
