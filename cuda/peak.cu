// Register-only loops that measure the arithmetic ceilings: FP32 FFMA, fp16 HFMA2 and WMMA
// (fp16 in, fp32 accumulate). No memory traffic in the loop, so the time is pure issue rate.
#include <mma.h>

#include "common.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 4;
constexpr int kChains = 8;  // independent FMA chains per thread hide the 4-cycle latency

int peak_grid() { return rl_sm_count() * kBlocksPerSm; }

// Seeds from the thread index so the compiler cannot fold the loop into a constant.
__global__ void __launch_bounds__(kThreads) ffma_loop(float *sink, int iters) {
  float a[kChains];
  const float m = 1.0f + threadIdx.x * 1e-7f, c = 1e-7f;
#pragma unroll
  for (int j = 0; j < kChains; ++j) a[j] = threadIdx.x + j;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 16; ++r) {
#pragma unroll
      for (int j = 0; j < kChains; ++j) a[j] = fmaf(a[j], m, c);
    }
  }
  float t = 0.f;
#pragma unroll
  for (int j = 0; j < kChains; ++j) t += a[j];
  if (blockIdx.x == gridDim.x - 1) sink[threadIdx.x] = t;
}

__global__ void __launch_bounds__(kThreads) hfma2_loop(float *sink, int iters) {
  __half2 a[kChains];
  const __half2 m = __floats2half2_rn(1.0f, 0.999f), c = __floats2half2_rn(1e-4f, 2e-4f);
#pragma unroll
  for (int j = 0; j < kChains; ++j) a[j] = __floats2half2_rn(threadIdx.x * 1e-3f, j * 1e-3f);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 16; ++r) {
#pragma unroll
      for (int j = 0; j < kChains; ++j) a[j] = __hfma2(a[j], m, c);
    }
  }
  float t = 0.f;
#pragma unroll
  for (int j = 0; j < kChains; ++j) t += __low2float(a[j]) + __high2float(a[j]);
  if (blockIdx.x == gridDim.x - 1) sink[threadIdx.x] = t;
}

// Four independent accumulators per warp keep the tensor pipe busy between dependent mmas.
__global__ void __launch_bounds__(kThreads) wmma_loop(float *sink, int iters) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4];
  wmma::fill_fragment(a, __float2half(1e-3f * (threadIdx.x & 7)));
  wmma::fill_fragment(b, __float2half(1e-3f));
#pragma unroll
  for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[j], 0.0f);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[j], a, b, acc[j]);
    }
  }
  // Every accumulator element feeds the sink: a 16x16x16 mma is two hardware m16n8k16
  // instructions, and reading only x[0] let the compiler drop the half that feeds nothing.
  float t = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int e = 0; e < acc[j].num_elements; ++e) t += acc[j].x[e];
  if (blockIdx.x == gridDim.x - 1) sink[threadIdx.x] = t;
}

}  // namespace

extern "C" size_t rl_peak_sink_floats(void) { return kThreads; }

extern "C" int rl_peak_ffma(float *sink, int iters, double *flops, void *stream) {
  RL_REQUIRE(sink && flops && iters >= 1);
  const int grid = peak_grid();
  *flops = 2.0 * grid * kThreads * (double)iters * 16 * kChains;
  ffma_loop<<<grid, kThreads, 0, rl_stream(stream)>>>(sink, iters);
  return rl_launch_status();
}

extern "C" int rl_peak_hfma2(float *sink, int iters, double *flops, void *stream) {
  RL_REQUIRE(sink && flops && iters >= 1);
  const int grid = peak_grid();
  *flops = 4.0 * grid * kThreads * (double)iters * 16 * kChains;  // 2 lanes x (mul + add)
  hfma2_loop<<<grid, kThreads, 0, rl_stream(stream)>>>(sink, iters);
  return rl_launch_status();
}

extern "C" int rl_peak_wmma(float *sink, int iters, double *flops, void *stream) {
  RL_REQUIRE(sink && flops && iters >= 1);
  const int grid = peak_grid();
  const double warps = (double)grid * (kThreads / 32);
  *flops = warps * (double)iters * 16 * (2.0 * 16 * 16 * 16);
  wmma_loop<<<grid, kThreads, 0, rl_stream(stream)>>>(sink, iters);
  return rl_launch_status();
}
