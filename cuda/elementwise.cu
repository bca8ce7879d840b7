// Elementwise ReLU / GELU over n fp16 values (HBM-bound: 2 bytes read + 2 written per element).
//   v1: one element per thread per grid-stride step, scalar loads, GELU from gelu.cuh.
//   v2: 16-byte loads/stores (8 halves), 4 vectors per thread per step, grid = one resident wave,
//       scalar tail; GELU in an MUFU form (ex2 + rcp): ~10 (tanh) / ~20 (erf) instructions per
//       element instead of ~25 / ~30, well under the ~31 issue slots per element the SMs have at
//       copy bandwidth.
//   v3: v2 with the loads staged through shared memory by cp.async, double-buffered: the next 4
//       vectors are in flight while the current 4 are computed, whatever ptxas does with registers
//       (in v2 it delays the 3rd and 4th load of the erf loop behind the math of the 1st).
//   v4: copy_v3's shape: one block per 2 x 256 16-byte vectors, both loads issued before any
//       math, no grid-stride loop, no shared memory (the block scheduler does the load balancing).
// Every element is read and then written by the same thread, so x == y is harmless.
#include "common.cuh"
#include "gelu.cuh"

namespace {

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

template <class Op>
__global__ void __launch_bounds__(kThreads) ew_scalar(const __half *x, __half *y, size_t n, Op op) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __float2half_rn(op(__half2float(x[i])));
}

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

// v4: copy_v3's shape. No grid-stride loop: block b owns vectors [b kChunk, (b + 1) kChunk),
// kChunk = kV4Vecs x 256; thread t loads its kV4Vecs vectors (stride 256 inside the chunk) before
// any math or store, then computes and stores them. The hardware block scheduler refills each SM
// as blocks retire, so every SM stays busy to the end of the buffer, and no shared memory or
// registers are tied up in a software pipeline. Plain loads (not .nc): x may equal y, and every
// element is read and written by the same thread. The scalar tail goes to the first threads.
constexpr int kV4Vecs = 2;  // 16-byte loads in flight per thread (copy_v3 uses 2)
constexpr long long kV4Chunk = (long long)kV4Vecs * kThreads;
constexpr int kV4BlocksPerSm = 8;  // 2048 threads/SM (32 registers): 64 KiB of loads in flight

template <class Op>
__global__ void __launch_bounds__(kThreads, kV4BlocksPerSm)
    ew_chunk(const __half *x, __half *y, size_t n, Op op) {
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  uint4 *yv = reinterpret_cast<uint4 *>(y);
  const size_t nvec = n / 8;
  const size_t i = (size_t)blockIdx.x * kV4Chunk + threadIdx.x;
  if (i + (kV4Vecs - 1) * kThreads < nvec) {
    uint4 v[kV4Vecs];
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u) v[u] = xv[i + u * kThreads];
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u) yv[i + u * kThreads] = apply8(v[u], op);
  } else {
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u)
      if (i + u * kThreads < nvec) yv[i + u * kThreads] = apply8(xv[i + u * kThreads], op);
  }
  scalar_tail(x, y, n, op);
}

// v1 runs Ref through the scalar kernel; v2-v4 run Fast through their vector kernel, or through
// the scalar one when a pointer is not 16-byte aligned.
template <class Ref, class Fast>
int launch(int variant, const void *x, void *y, size_t n, Ref ref, Fast fast, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= 4 && x != nullptr && y != nullptr && n >= 1);
  const __half *xh = static_cast<const __half *>(x);
  __half *yh = static_cast<__half *>(y);
  cudaStream_t s = rl_stream(stream);
  const long long wave = (long long)rl_sm_count() * kBlocksPerSm;
  const bool aligned = ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0);
  // v4: one block per chunk (at least one block: n < 8 is all tail). A grid past 2^31 - 1
  // blocks (> 8 Ti elements) would not launch; such sizes take v2's grid-stride kernel.
  const long long chunks = rl_ceil_div((long long)(n / 8), kV4Chunk);
  if (variant == 4 && aligned && chunks <= 0x7fffffffLL) {
    ew_chunk<<<(unsigned)(chunks > 0 ? chunks : 1), kThreads, 0, s>>>(xh, yh, n, fast);
  } else if (variant >= 2 && aligned) {
    // No more threads than 16-byte vectors, but at least one block (n < 8 is all tail).
    const long long need = rl_ceil_div((long long)(n / 8 > 0 ? n / 8 : 1), kThreads);
    const int grid = (int)(need < wave ? need : wave);
    if (variant == 2 || variant == 4)
      ew_vec<<<grid, kThreads, 0, s>>>(xh, yh, n, fast);
    else
      ew_vec_async<<<grid, kThreads, 0, s>>>(xh, yh, n, fast);
  } else {
    const long long need = rl_ceil_div((long long)n, kThreads);
    const int grid = (int)(need < wave ? need : wave);
    if (variant >= 2)
      ew_scalar<<<grid, kThreads, 0, s>>>(xh, yh, n, fast);
    else
      ew_scalar<<<grid, kThreads, 0, s>>>(xh, yh, n, ref);
  }
  return rl_launch_status();
}

}  // namespace

extern "C" int rl_relu(int variant, const void *x, void *y, size_t n, void *stream) {
  return launch(variant, x, y, n, Relu{}, Relu{}, stream);
}

extern "C" int rl_gelu(int variant, const void *x, void *y, size_t n, int gelu_kind,
                       void *stream) {
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  return gelu_kind == 0 ? launch(variant, x, y, n, Gelu<0>{}, GeluTanhFast{}, stream)
                        : launch(variant, x, y, n, Gelu<1>{}, GeluErfFast{}, stream);
}

extern "C" int rl_elementwise_variant_count(void) { return 4; }

extern "C" const char *rl_elementwise_variant_name(int variant) {
  switch (variant) {
    case 1: return "v1 scalar grid-stride, GELU from gelu.cuh";
    case 2: return "v2 16-byte vectors, 4 per thread per step, one resident wave, MUFU GELU";
    case 3: return "v3 v2 with loads double-buffered through shared memory by cp.async";
    case 4: return "v4 copy_v3 shape: one block per 2 x 256 vectors, no grid-stride loop";
    default: return nullptr;
  }
}
