// Elementwise v3 "cp_async": v2 with the loads staged through shared memory by cp.async,
// double-buffered: the next 4 vectors are in flight while the current 4 are computed, whatever
// ptxas does with registers (in v2 it delays the 3rd and 4th load of the erf loop behind the
// math of the 1st).
//
// Measured on the H200 (docs/perf-log.md, elementwise; R3, 1 GiB): ReLU 3913 GB/s, GELU tanh
// 3803 (predicted 95% / 95%): the same half-empty last pass as v2.
#pragma once
#include "elementwise/elementwise_2_vectors.cuh"

namespace rlew {

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_prev() {  // all groups but the newest are done
  asm volatile("cp.async.wait_group 1;" ::: "memory");
}

// Each thread owns its slots of the staging buffer (it alone fills and reads them), so no
// barrier is needed: cp.async.wait_group makes a thread's own copies visible to it.
template <class Op>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ew_vec_async(const __half *x, __half *y, size_t n, Op op) {
  __shared__ uint4 stage[2][kUnroll][kThreads];  // 32 KiB
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  uint4 *yv = reinterpret_cast<uint4 *>(y);
  const size_t nvec = n / 8;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t step = kUnroll * stride;
  auto fetch = [&](int buf, size_t i) {  // an empty group past the end is fine
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * stride < nvec) cp_async16(&stage[buf][u][threadIdx.x], xv + i + u * stride);
    cp_async_commit();
  };
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int buf = 0;
  fetch(buf, i);
  for (; i < nvec; i += step, buf ^= 1) {
    fetch(buf ^ 1, i + step);  // the buffer read in the previous step, by this thread only
    cp_async_wait_prev();
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * stride < nvec) yv[i + u * stride] = apply8(stage[buf][u][threadIdx.x], op);
  }
  scalar_tail(x, y, n, op);
}

template <class Ref, class Fast>
int elementwise_v3(const __half *x, __half *y, size_t n, cudaStream_t s) {
  return launch_vectors<Fast>(ew_vec_async<Fast>, x, y, n, s);
}

}  // namespace rlew
