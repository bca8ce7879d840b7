// LayerNorm v1 "three_passes": one 256-thread block per row; the row is read from global memory
// three times (sum, sum of squared deviations, output). HBM-bound: x read once and y written
// once is the floor (32768x4096: 537 MB = 130 us at 4128 GB/s; 4096x4096: 67 MB = 16.3 us).
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; R3): 4096x4096 in graph timing 1200 GB/s,
// 29% of the copy ceiling (predicted 15-25%). Every later variant falls back to it where its
// own shapes end (hidden > 16384).
#pragma once
#include "common.cuh"

namespace rln {

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

constexpr int kV1Threads = 256;

// Sum over the block, returned to every thread; scratch is free again when it returns.
__device__ float block_sum(float v, float *scratch) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.0f;
  for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += scratch[w];
  __syncthreads();
  return t;
}

__global__ void __launch_bounds__(kV1Threads)
    ln_v1(const __half *x, const __half *gamma, const __half *beta, __half *y, int hidden,
          float inv_hidden, float eps) {
  __shared__ float scratch[kV1Threads / 32];
  const size_t base = (size_t)blockIdx.x * hidden;
  const __half *xr = x + base;
  float s = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) s += __half2float(xr[i]);
  const float mean = block_sum(s, scratch) * inv_hidden;
  float q = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float d = __half2float(xr[i]) - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_sum(q, scratch) * inv_hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = (__half2float(xr[i]) - mean) * rstd;
    y[base + i] = __float2half_rn(v * __half2float(gamma[i]) + __half2float(beta[i]));
  }
}

inline void launch_three_passes(const __half *x, const __half *g, const __half *b, __half *y,
                                int rows, int hidden, float eps, cudaStream_t s) {
  ln_v1<<<rows, kV1Threads, 0, s>>>(x, g, b, y, hidden, 1.0f / hidden, eps);
}


inline int layernorm_v1(const __half *x, const __half *g, const __half *b, __half *y, int rows,
                        int hidden, float eps, cudaStream_t s) {
  launch_three_passes(x, g, b, y, rows, hidden, eps, s);
  return rl_launch_status();
}

}  // namespace rln
