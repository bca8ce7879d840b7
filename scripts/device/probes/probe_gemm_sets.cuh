// The probes' rotated GEMM buffers (development only): SETS copies of A [m x k] and B [k x n],
// uniform in [-1, 1] (seeds 11 + i and 101 + i), and of C [m x n], so that launches which
// rotate over them find their inputs cold in L2. Not copyable: lambdas take the arrays.
#pragma once
#include <cuda_fp16.h>

#include "../../../cuda/kernels.h"
#include "probe_bench.cuh"

template <int SETS>
struct GemmSets {
  half *a[SETS], *b[SETS], *c[SETS];

  GemmSets(int m, int n, int k, cudaStream_t st) {
    for (int i = 0; i < SETS; ++i) {
      CK(cudaMalloc(&a[i], (size_t)m * k * 2));
      CK(cudaMalloc(&b[i], (size_t)k * n * 2));
      CK(cudaMalloc(&c[i], (size_t)m * n * 2));
      CK(static_cast<cudaError_t>(rl_fill_uniform_f16(a[i], (size_t)m * k, 11 + i, -1.f, 1.f, st)));
      CK(static_cast<cudaError_t>(rl_fill_uniform_f16(b[i], (size_t)k * n, 101 + i, -1.f, 1.f, st)));
    }
    CK(cudaStreamSynchronize(st));
  }
  GemmSets(const GemmSets &) = delete;
  GemmSets &operator=(const GemmSets &) = delete;
  ~GemmSets() {
    for (int i = 0; i < SETS; ++i) {
      CK(cudaFree(a[i]));
      CK(cudaFree(b[i]));
      CK(cudaFree(c[i]));
    }
  }
};
