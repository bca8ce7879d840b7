// Elementwise v2 "vectors": 16-byte loads and stores (8 halves), 4 vectors per thread per step,
// grid = one resident wave, scalar tail; GELU in an MUFU form (ex2 + rcp): ~10 (tanh) / ~20
// (erf) instructions per element instead of ~25 / ~30, well under the ~31 issue slots per
// element the SMs have at copy bandwidth.
//
// Measured on the H200 (docs/perf-log.md, elementwise; R3, 1 GiB): ReLU 3914 GB/s (predicted
// 95% of the copy ceiling): the grid-stride loop ends on a half-empty last pass.
#pragma once
#include "elementwise/elementwise_1_scalar.cuh"

namespace rlew {

template <class Op>
__device__ __forceinline__ uint4 apply8(uint4 v, Op op) {
  __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float2 f = __half22float2(h[j]);
    h[j] = __floats2half2_rn(op(f.x), op(f.y));
  }
  return v;
}

// The < 8 elements after the last whole vector, one per thread of the grid's first threads.
template <class Op>
__device__ __forceinline__ void scalar_tail(const __half *x, __half *y, size_t n, Op op) {
  const size_t t = (n / 8) * 8 + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) y[t] = __float2half_rn(op(__half2float(x[t])));
}

// x and y are 16-byte aligned (checked by the launcher).
template <class Op>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ew_vec(const __half *x, __half *y, size_t n, Op op) {
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  uint4 *yv = reinterpret_cast<uint4 *>(y);
  const size_t nvec = n / 8;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = xv[i + u * stride];  // all loads before any store
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) yv[i + u * stride] = apply8(v[u], op);
  }
  for (; i < nvec; i += stride) yv[i] = apply8(xv[i], op);
  scalar_tail(x, y, n, op);
}

// No more threads than 16-byte vectors, but at least one block (n < 8 is all tail).
inline int vector_grid(size_t n) {
  const long long wave = (long long)rl_sm_count() * kBlocksPerSm;
  const long long need = rl_ceil_div((long long)(n / 8 > 0 ? n / 8 : 1), kThreads);
  return (int)(need < wave ? need : wave);
}

// A vector kernel where x and y are 16-byte aligned, else the scalar one (v3 too).
template <class Fast>
int launch_vectors(void (*kernel)(const __half *, __half *, size_t, Fast), const __half *x,
                   __half *y, size_t n, cudaStream_t s) {
  if (aligned16(x, y))
    kernel<<<vector_grid(n), kThreads, 0, s>>>(x, y, n, Fast{});
  else
    launch_scalar(x, y, n, Fast{}, s);
  return rl_launch_status();
}

template <class Ref, class Fast>
int elementwise_v2(const __half *x, __half *y, size_t n, cudaStream_t s) {
  return launch_vectors<Fast>(ew_vec<Fast>, x, y, n, s);
}

}  // namespace rlew
