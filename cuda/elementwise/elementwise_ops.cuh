// The elementwise family's operations and launch shape: ReLU, the GELU forms (the reference
// forms of gelu.cuh for v1, MUFU forms for the vector kernels), and the block geometry.
// HBM-bound: 2 bytes read + 2 written per element. Every element is read and then written by
// the same thread, so x == y is harmless.
#pragma once
#include "common.cuh"
#include "gelu.cuh"

namespace rlew {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // 16-byte vectors per thread per step
// 5 x 256 threads x 4 x 16 B = 80 KiB of loads in flight per SM (~10 MiB on 132 SMs, ~2x what
// HBM needs); 5 blocks leave 48 registers, which the GELU math fits without spills (6 spill).
constexpr int kBlocksPerSm = 5;

struct Relu {
  __device__ __forceinline__ float operator()(float v) const { return v > 0.0f ? v : 0.0f; }
};

template <int KIND>
struct Gelu {
  __device__ __forceinline__ float operator()(float v) const { return rl_gelu(v, KIND); }
};

__device__ __forceinline__ float ex2_approx(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

__device__ __forceinline__ float rcp_approx(float v) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

constexpr float kLog2e = 1.4426950408889634f;

// 0.5 x (1 + tanh(u)) = x sigmoid(2u) = x / (1 + 2^(-2u log2 e)), u = sqrt(2/pi)(x + 0.044715 x^3).
// No cancellation for negative x (the tanhf form loses the tail there). Over every finite fp16
// input the rounded result is within 1 ulp of a float64 reference (checked offline, see notes).
struct GeluTanhFast {
  __device__ __forceinline__ float operator()(float v) const {
    const float c0 = -2.0f * 0.7978845608028654f * kLog2e;
    const float c1 = c0 * 0.044715f;
    const float e = ex2_approx(v * fmaf(c1, v * v, c0));  // +inf for very negative v: result -0
    return v * rcp_approx(1.0f + e);
  }
};

// x Phi(x) with Phi(-|x|) = erfc(|x|/sqrt2)/2 from the Numerical Recipes erfcc fit (fractional
// error < 1.2e-7 for every argument, so the negative tail keeps its relative accuracy):
// erfc(a) = t exp(-a^2 + P(t)), t = 1/(1 + a/2). log2 e and the factor 1/2 are folded into the
// coefficients so that exp is one ex2. Within 1 fp16 ulp of float64 over all fp16 inputs.
struct GeluErfFast {
  __device__ __forceinline__ float operator()(float v) const {
    const float a = fabsf(v) * 0.7071067811865476f;
    const float t = rcp_approx(fmaf(0.5f, a, 1.0f));
    float q = 0.17087277f * kLog2e;
    q = fmaf(q, t, -0.82215223f * kLog2e);
    q = fmaf(q, t, 1.48851587f * kLog2e);
    q = fmaf(q, t, -1.13520398f * kLog2e);
    q = fmaf(q, t, 0.27886807f * kLog2e);
    q = fmaf(q, t, -0.18628806f * kLog2e);
    q = fmaf(q, t, 0.09678418f * kLog2e);
    q = fmaf(q, t, 0.37409196f * kLog2e);
    q = fmaf(q, t, 1.00002368f * kLog2e);
    q = fmaf(q, t, -1.26551223f * kLog2e - 1.0f);                 // -1: the factor 1/2
    const float h = t * ex2_approx(fmaf(v * v, -0.5f * kLog2e, q));  // Phi(-|v|)
    return v * (v >= 0.0f ? 1.0f - h : h);
  }
};

}  // namespace rlew
