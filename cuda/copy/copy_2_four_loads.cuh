// Copy v2 "four_loads": v1 with four independent 16-byte loads in flight per thread before the
// stores (Little's law: HBM needs several MB in flight chip-wide).
//
// Measured on the H200 (docs/perf-log.md, copy; R1, 1 GiB): 3882 GB/s. The grid-stride loop
// ends on a half-empty last pass.
#pragma once
#include "copy/copy_common.cuh"

namespace rlcopy {

__global__ void copy_v2(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n16; i += stride) dst[i] = src[i];
}

inline void copy_four_loads(const uint4 *src, uint4 *dst, size_t n16, cudaStream_t s) {
  copy_v2<<<grid_for(n16), kThreads, 0, s>>>(src, dst, n16);
}

}  // namespace rlcopy
