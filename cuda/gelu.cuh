// GELU in fp32, shared by the elementwise, unfused and fused-epilogue kernels so that all
// paths compute the same function. kind 0: tanh approximation, kind 1: erf (exact).
#pragma once
#include <cuda_runtime.h>

// 0.5 x (1 + tanh(u)) is exactly x * sigmoid(2u) = x / (1 + exp(-2u)). That form costs one
// ex2 and one reciprocal on the SFU plus a few FMAs, where tanhf is a ~20-instruction
// sequence: it is what the fused GEMM epilogue pays per output element. Relative error stays
// ~1e-6 everywhere (also for very negative x, where the tanh form subtracts nearly equal
// values); exp overflow to inf gives x / inf = -0, GELU's limit.
__device__ __forceinline__ float rl_gelu_tanh(float x) {
  const float k0 = 0.7978845608028654f;  // sqrt(2/pi)
  const float k1 = 0.044715f;
  const float u = k0 * fmaf(k1 * x, x * x, x);
  return __fdividef(x, 1.0f + __expf(-2.0f * u));
}

// The fused GEMM epilogue's form: 0.5 x (1 + tanh(u)) with the hardware tanh (tanh.approx.f32,
// sm_75+: one SFU op, max relative error ~2^-11, as CUTLASS's fast_tanh). There the SFU is
// the bottleneck at the end of every tile (2 SFU ops per element above; no main loop to hide
// them), while the memory-bound kernels keep the form above, whose math HBM time hides. The
// cost: an absolute error <= ~2.5e-4 |x| (below half an fp16 ulp of the output for x >~ -1;
// in the far negative tail, where |gelu| < 0.01, it is larger than the output's ulp).
// Written in h = x / 2 (exact): u = h (2 k0 + 8 k0 k1 h^2), gelu = h + h tanh(u): with h
// formed as fmaf(acc, 0.5, bias / 2) the epilogue pays 5 FP32 ops and the tanh per element.
__device__ __forceinline__ float rl_gelu_tanh_fast_half(float h) {
  const float c0 = 1.5957691216057308f;  // 2 sqrt(2/pi)
  const float c1 = 0.285419265090401f;   // 8 sqrt(2/pi) 0.044715
  const float u = h * fmaf(c1, h * h, c0);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  return fmaf(h, t, h);
}
__device__ __forceinline__ float rl_gelu_tanh_fast(float x) {
  return rl_gelu_tanh_fast_half(0.5f * x);
}

__device__ __forceinline__ float rl_gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
}

// The erf form for the fused epilogue (GEMM+GELU v20). erff above costs ~26 instructions per
// value (two polynomials selected coefficient by coefficient, an ex2, the sign logic); with it
// the fused erf kernel took 1.3-1.5x the plain GEMM at one wave of tiles (docs/perf-log.md).
// Here the normal CDF is written as a logistic, Phi(x) = 1 / (1 + 2^q(x)), with q = -log2(e)
// logit(Phi(x)) = x P(x^2), P of degree 6 fitted (weighted minimax) for |x| <= 5.5 and held
// at P(5.5^2) beyond, where q keeps growing linearly and Phi goes to 0 or 1 as it should.
// gelu = x / (1 + 2^q): 10 FP32 ops, one ex2 and one reciprocal, no branches. Against the
// float64 x Phi(x): absolute error <= 2e-7 max(1, |x|) (host form, exact exp2; the SFU's ex2
// and rcp add ~2^-22 relative), at most 1.7x the erff form's and smaller below x = -5, where
// 1 + erff cancels; both far below half an fp16 ulp of the output. The fit and that comparison:
// scripts/fit_gelu_erf.py (in git at 877c669); the CPU test of these coefficients:
// src/kernels/gemm_gelu.rs.
__host__ __device__ __forceinline__ float rl_gelu_erf_q(float x) {
  const float x2 = fminf(x * x, 30.25f);
  float p = -5.067292363e-09f;
  p = fmaf(p, x2, 3.816328160e-07f);
  p = fmaf(p, x2, -1.143984719e-05f);
  p = fmaf(p, x2, 1.595799840e-04f);
  p = fmaf(p, x2, 9.404921002e-05f);
  p = fmaf(p, x2, -1.048351228e-01f);
  p = fmaf(p, x2, -2.302209377e+00f);
  return x * p;
}
__device__ __forceinline__ float rl_gelu_erf_fast(float x) {
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(rl_gelu_erf_q(x)));
  return __fdividef(x, 1.0f + e);  // e = inf (x << 0): x * rcp(inf) = -0, GELU's limit
}

// Bias + GELU as the tile kernels' fused epilogues take it (GEMM+GELU's EpiBiasGelu in its V20
// forms, HGEMM v25's run-time WrRuntimeEpi): the bias prepped once per column (halved for the
// tanh form, whose gelu(v + b) is rl_gelu_tanh_fast_half(fmaf(v, 0.5, b / 2))), then applied
// per value. kind 0 tanh, 1 erf (the logistic polynomial), else the bias alone.
__device__ __forceinline__ float rl_bias_gelu_prep(float b, int kind) {
  return kind == 0 ? 0.5f * b : b;
}
__device__ __forceinline__ float rl_bias_gelu_fast(float v, float prepped, int kind) {
  if (kind == 0) return rl_gelu_tanh_fast_half(fmaf(v, 0.5f, prepped));
  return kind == 1 ? rl_gelu_erf_fast(v + prepped) : v + prepped;
}

__device__ __forceinline__ float rl_gelu(float x, int kind) {
  return kind == 0 ? rl_gelu_tanh(x) : rl_gelu_erf(x);
}

// The GELU of the fused epilogue: the fast tanh form, or erf (exact) for kind 1.
__device__ __forceinline__ float rl_gelu_fused(float x, int kind) {
  return kind == 0 ? rl_gelu_tanh_fast(x) : rl_gelu_erf(x);
}
