// GEMV v4 "tensor_cores": v3, with 2..16 rows on tensor cores. The FMA path needs 16 FFMA per
// W element at 16 rows, as much issue time as the HBM time; here the inner product is
// mma.sync m16n8k16 with x as the A operand and W's fragments built from the same 16-byte
// loads by byte permutes (1/64 of an MMA per W element), K split across blocks as in v3
// (gemv_mma). One row stays on v3's FMA kernel, which measured faster there.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV table, R3 and F; µs): the tensor cores
// at every row count (old v4) 17.4 at 1 x 4096², 18.4 at 16 x 4096² (v3: 66.0), 42.0 at 1 x
// 8192² (v3: 39.8); this step (old v7, F) 17.9 / 19.8 / 39.9 (graph 35.1: 92.8% of the copy
// rate), faster than cuBLAS at every M <= 16 (20.4-24.2 us at 4096², 46.1-49.1 at 8192²), but
// 1.24-1.37x the read at 4096² and 1.11-1.22x at 8192²: a fixed 3-5 us over it.
// Tried next and removed (in git at 61dd79f, old v5 and v6): the split-K reduction in a
// cluster over DSMEM instead of the workspace (18.4 / 21.5 / 42.0: not faster), and W through
// a 6-stage per-lane cp.async ring (27.1 / 30.8 / 70.1: 50-60% slower; its 98 KB of shared
// memory per block halves the blocks per SM).
#pragma once
#include "gemv/gemv_03_split_k.cuh"

namespace {

template <int MB>
cudaError_t launch_mma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K,
                       int S, cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  if (S == 1)
    gemv_mma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1, xvec);
  else
    gemv_mma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S, xvec);
  return cudaSuccess;
}

struct TensorCores : SplitK {
  static int launch(const Rows &r) {
    if (r.rows == 1 || !vector_ok(r.W, r.N)) return SplitK::launch(r);
    const int MB = bucket(r.rows), S = mma_splits(MB, r.N, r.K);
    return launch_status(MB <= 8 ? launch_mma<8>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s)
                                 : launch_mma<16>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s));
  }
  static int splits(int rows, int N, int K) {
    return rows == 1 ? SplitK::splits(rows, N, K) : mma_splits(bucket(rows), N, K);
  }
};

}  // namespace
