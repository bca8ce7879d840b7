// Copy v3 "blocks" (best): no grid-stride loop: one block per 2 x 256 16-byte words, each
// thread two loads in flight; the hardware block scheduler keeps every SM full to the end of
// the buffer. It defines the copy ceiling the memory-bound families are measured against.
//
// Measured on the H200 (docs/perf-log.md, copy; R1 / R3 / F, 1 GiB): 4128 / 4127 / 4108-4150
// GB/s, 86% of the datasheet's 4.8 TB/s (PyTorch reaches ~4.25 TB/s on the same card).
#pragma once
#include "copy/copy_common.cuh"

namespace rlcopy {

// v3: no grid-stride loop: one block per 2 x 256 16-byte words, each thread two loads in
// flight; the hardware block scheduler keeps every SM full to the end of the buffer.
__global__ void __launch_bounds__(kThreads) copy_v3(const uint4 *__restrict__ src,
                                                     uint4 *__restrict__ dst, size_t n16) {
  const size_t i = blockIdx.x * (size_t)(2 * kThreads) + threadIdx.x;
  if (i + kThreads < n16) {
    uint4 a = src[i], b = src[i + kThreads];
    dst[i] = a;
    dst[i + kThreads] = b;
  } else if (i < n16) {
    dst[i] = src[i];
  }
}

inline void copy_blocks(const uint4 *src, uint4 *dst, size_t n16, cudaStream_t s) {
  copy_v3<<<(unsigned)rl_ceil_div((long long)n16, 2 * kThreads), kThreads, 0, s>>>(src, dst,
                                                                                    n16);
}

}  // namespace rlcopy
