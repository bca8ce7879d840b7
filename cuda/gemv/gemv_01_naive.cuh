// GEMV v1 "naive": one thread per output element, a scalar loop over K. The loads of W are
// coalesced along N, but each is 2 bytes, and every thread re-reads its row of x. The
// starting point.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV table, run R3; cold, one launch, µs):
// 160.7 at 1 x 4096², 146.0 at 16 x 4096², 327.8 at 1 x 8192² (graph 323.2), against a plain
// read of W in 15.8 / 36.8 and cuBLAS's 21.2 / 24.4 / 47.0: 1-3% of the copy rate, as
// predicted.
#pragma once
#include "gemv/gemv_common.cuh"

namespace {

__global__ void __launch_bounds__(kThreads)
    gemv_v1(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  for (int m = blockIdx.y; m < M; m += gridDim.y) {
    const __half *xr = x + (size_t)m * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(xr[k]) * __half2float(W[(size_t)k * N + n]);
    y[(size_t)m * N + n] = __float2half_rn(acc);
  }
}

// A step of the ladder: launch (one launch of at most 16 rows), splits (the split-K factor
// such a launch of `rows` rows uses, 1: no workspace) and setup (the one-time host queries,
// which rl_gemv_workspace_bytes makes before any graph capture). Each step derives from the
// one it builds on and replaces what it changes.
struct Naive {
  static int launch(const Rows &r) {
    const dim3 grid((unsigned)rl_ceil_div(r.N, kThreads), r.rows);
    gemv_v1<<<grid, kThreads, 0, r.s>>>(r.x, r.W, r.y, r.rows, r.N, r.K);
    return rl_launch_status();
  }
  static int splits(int, int, int) { return 1; }
  static void setup() {}
};

}  // namespace
