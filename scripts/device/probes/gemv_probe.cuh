// What the GEMV probes (gemv_*.cu) share: they include cuda/gemv.cu for its internal kernels,
// then probe_bench.cuh, then this header.
#pragma once
#include <cuda_fp16.h>

// Exits with a message unless the TMA slabs can run here (sm_90 and the driver's encoder).
inline void require_tma() {
  if (!tma_capable()) {
    std::fprintf(stderr, "needs compute capability 9.x and a driver with cuTensorMapEncodeTiled\n");
    std::exit(1);
  }
}

// The GEMV probes' buffers: `sets` copies of an n x n fp16 W and of a 64 x n x (64 rows:
// 4 m-tiles), rotated so that each launch finds its W cold (> 3x a 60 MiB L2 in all), and
// one 64 x n y. The values are finite fp16 (0x1111); the probes do not check results.
struct GemvProbeBuffers {
  int n, sets;
  size_t bytes;  // of one W
  std::vector<__half *> W, x;
  __half *y;
  explicit GemvProbeBuffers(int n_) : n(n_), bytes((size_t)n_ * n_ * 2) {
    sets = (int)std::max<size_t>(2, (size_t)(3 * 60 * 1024 * 1024) / bytes + 1);
    W.resize(sets);
    x.resize(sets);
    for (int i = 0; i < sets; ++i) {
      CK(cudaMalloc(&W[i], bytes));
      CK(cudaMemset(W[i], 0x11, bytes));
      CK(cudaMalloc(&x[i], (size_t)64 * n * 2));
      CK(cudaMemset(x[i], 0x11, (size_t)64 * n * 2));
    }
    CK(cudaMalloc(&y, (size_t)64 * n * 2));
  }
};
