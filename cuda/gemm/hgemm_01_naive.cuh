// HGEMM v1 "naive": one warp per 16x16 output tile, its WMMA fragments loaded straight from
// global memory. The starting point: no data reuse beyond what L1 and L2 give by chance.
//
// Measured on the H200 (docs/perf-log.md, HGEMM table; reports R4 / F, cold, one launch):
// 26 TFLOP/s at 2048³, 27 at 4096³ and 8192³ (predicted ~30), against cuBLAS's 450-756.
#pragma once
#include "gemm/epilogue.cuh"

namespace rlg {

// v1: one warp per 16x16 output tile, fragments loaded straight from global memory. Fragments
// that cross an edge (or any fragment on the !VEC path) are staged through a per-warp 16x16
// smem tile with bounds-checked element loads. VEC here also needs 32-byte aligned A and B
// (WMMA's rule for a fragment pointer; row offsets are multiples of 16 elements, so the base
// alignment carries over to every fragment).
constexpr int kSimpleWarpsM = 2, kSimpleWarpsN = 4;
constexpr int kSimpleWarps = kSimpleWarpsM * kSimpleWarpsN;
constexpr int kSimpleBM = 16 * kSimpleWarpsM, kSimpleBN = 16 * kSimpleWarpsN;

// T: the element type (half; bf16 where the bf16 paths have no wgmma tile: off the 16-byte
// path, or a device without sm_90a; gemm/bf16_paths.cuh).
template <bool VEC, class Epi, class T = half>
__global__ void __launch_bounds__(kSimpleWarps * 32)
    simple_wmma_kernel(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C,
                       int M, int N, int K, Epi epi) {
  __shared__ __align__(128) T sA[kSimpleWarps][16 * 16];
  __shared__ __align__(128) T sB[kSimpleWarps][16 * 16];
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
    FragAOf<T> a;
    FragBOf<T> b;
    if (inner && k0 + 16 <= K) {
      wmma::load_matrix_sync(a, A + static_cast<size_t>(row0) * K + k0, K);
      wmma::load_matrix_sync(b, B + static_cast<size_t>(k0) * N + col0, N);
    } else {
      __syncwarp();  // the previous step's fragment loads are done with sA/sB
      for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = e % 16;
        sA[warp][e] = (row0 + r < M && k0 + c < K) ? A[static_cast<size_t>(row0 + r) * K + k0 + c]
                                                   : T(0.0f);
        sB[warp][e] = (k0 + r < K && col0 + c < N) ? B[static_cast<size_t>(k0 + r) * N + col0 + c]
                                                   : T(0.0f);
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

template <class Epi, class T>
int launch_naive(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  const long long blocks = rl_ceil_div(N, kSimpleBN) * rl_ceil_div(M, kSimpleBM);
  RL_REQUIRE(blocks <= 0x7fffffffLL);
  const unsigned grid = static_cast<unsigned>(blocks);
  const bool vec = N % 8 == 0 && K % 8 == 0 && aligned_to(A, 32) && aligned_to(B, 32) &&
                   aligned_to(C, 16) && epi.vec_ok();
  if (vec)
    simple_wmma_kernel<true, Epi, T><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K,
                                                                             epi);
  else
    simple_wmma_kernel<false, Epi, T><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K,
                                                                              epi);
  return rl_launch_status();
}

}  // namespace rlg
