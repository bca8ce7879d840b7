// Elementwise v1 "scalar": one element per thread per grid-stride step, scalar loads, GELU from
// gelu.cuh. Floors at 1 GiB of fp16 (2.15 GB moved): 520 us at 4128 GB/s.
//
// Measured on the H200 (docs/perf-log.md, elementwise; R3, 1 GiB): ReLU 1467 GB/s (predicted
// 10-15% of the copy ceiling). The vector steps fall back to this kernel (with their fast op)
// where a pointer is not 16-byte aligned.
#pragma once
#include "elementwise/elementwise_ops.cuh"

namespace rlew {

template <class Op>
__global__ void __launch_bounds__(kThreads) ew_scalar(const __half *x, __half *y, size_t n, Op op) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __float2half_rn(op(__half2float(x[i])));
}

// One resident wave at most, no more threads than elements.
template <class Op>
void launch_scalar(const __half *x, __half *y, size_t n, Op op, cudaStream_t s) {
  const long long wave = (long long)rl_sm_count() * kBlocksPerSm;
  const long long need = rl_ceil_div((long long)n, kThreads);
  const int grid = (int)(need < wave ? need : wave);
  ew_scalar<<<grid, kThreads, 0, s>>>(x, y, n, op);
}

template <class Ref, class Fast>
int elementwise_v1(const __half *x, __half *y, size_t n, cudaStream_t s) {
  launch_scalar(x, y, n, Ref{}, s);
  return rl_launch_status();
}

inline bool aligned16(const void *x, const void *y) {
  return ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0);
}

}  // namespace rlew
