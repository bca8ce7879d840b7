// GEMV v2 "vector_loads": 16-byte loads of W (8 columns per lane); a block of 8 warps owns 64
// columns, one 128-byte line per row, and splits K over its warps (a shared-memory reduction at
// the end); x's rows come through L1, and M is bucketed (1, 2, 4, 8, 16 rows) so that the M x 8
// fp32 accumulators per lane stay in registers (gemv_fma, kDirect). Off the 16-byte path (N % 8
// != 0 or W unaligned) this step and every later one run the scalar-column kernel.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV table, R3; µs, as v1's): 25.6 at
// 1 x 4096² (v1: 160.7), 123.1 at 16 x 4096², 49.0 at 1 x 8192² (graph 43.8): one row at
// 0.62x / 0.75x the read's rate (predicted 15-40% of the copy rate). There are only N / 64
// blocks (64 at N = 4096), too few to keep HBM busy, and 16 rows issue 16 FFMA per W element.
#pragma once
#include "gemv/gemv_01_naive.cuh"

namespace {

template <int MB>
void launch_scalar(const __half *x, const __half *W, __half *y, int M, int N, int K,
                   cudaStream_t s) {
  gemv_scalar<MB><<<(int)rl_ceil_div(N, 32), kThreads, 0, s>>>(x, W, y, M, N, K);
}

template <int MB>
void launch_fma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S,
                cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  if (S > 1)
    gemv_fma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S);
  else
    gemv_fma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1);
}

// The FMA kernel for r.rows rows, K split over S blocks per column tile (S > 1: through the
// workspace).
int launch_fma_rows(const Rows &r, int S) {
  switch (bucket(r.rows)) {
    case 1: launch_fma<1>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s); break;
    case 2: launch_fma<2>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s); break;
    case 4: launch_fma<4>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s); break;
    case 8: launch_fma<8>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s); break;
    default: launch_fma<16>(r.x, r.W, r.y, r.ws, r.rows, r.N, r.K, S, r.s); break;
  }
  return rl_launch_status();
}

struct VectorLoads : Naive {
  static int launch(const Rows &r) {
    if (!vector_ok(r.W, r.N)) {
      switch (bucket(r.rows)) {
        case 1: launch_scalar<1>(r.x, r.W, r.y, r.rows, r.N, r.K, r.s); break;
        case 2: launch_scalar<2>(r.x, r.W, r.y, r.rows, r.N, r.K, r.s); break;
        case 4: launch_scalar<4>(r.x, r.W, r.y, r.rows, r.N, r.K, r.s); break;
        case 8: launch_scalar<8>(r.x, r.W, r.y, r.rows, r.N, r.K, r.s); break;
        default: launch_scalar<16>(r.x, r.W, r.y, r.rows, r.N, r.K, r.s); break;
      }
      return rl_launch_status();
    }
    return launch_fma_rows(r, 1);
  }
};

}  // namespace
