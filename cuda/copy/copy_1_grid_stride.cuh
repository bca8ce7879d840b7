// Copy v1 "grid_stride": a grid-stride copy, one 16-byte access per thread per step, one
// resident wave of blocks.
#pragma once
#include "copy/copy_common.cuh"

namespace rlcopy {

__global__ void copy_v1(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

inline void copy_grid_stride(const uint4 *src, uint4 *dst, size_t n16, cudaStream_t s) {
  copy_v1<<<grid_for(n16), kThreads, 0, s>>>(src, dst, n16);
}

}  // namespace rlcopy
