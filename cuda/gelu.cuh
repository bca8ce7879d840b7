// GELU in fp32, shared by the elementwise, unfused and fused-epilogue kernels so that all
// paths compute the same function. kind 0: tanh approximation, kind 1: erf (exact).
#pragma once
#include <cuda_runtime.h>

__device__ __forceinline__ float rl_gelu_tanh(float x) {
  const float k0 = 0.7978845608028654f;  // sqrt(2/pi)
  const float k1 = 0.044715f;
  float u = k0 * (x + k1 * x * x * x);
  return 0.5f * x * (1.0f + tanhf(u));
}

__device__ __forceinline__ float rl_gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
}

__device__ __forceinline__ float rl_gelu(float x, int kind) {
  return kind == 0 ? rl_gelu_tanh(x) : rl_gelu_erf(x);
}
