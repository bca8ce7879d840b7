// roofline: family = gemv
// roofline: kernel = gemv_lazy
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu that does the work for its first 8 launches and then
// returns at once, so it passes the check before timing and is absurdly fast while timed.
// The tool checks a user's kernel again after its timed launches: that check must fail
// (exit code 1, "after timing").
#include <cuda_fp16.h>

__device__ unsigned int launches;  // counts launches: block (0, 0)'s thread 0 adds one

extern "C" __global__ void gemv_lazy(const __half* x, const __half* W, __half* y,
                                     int M, int N, int K) {
  const unsigned int seen = launches;  // read before this launch's increment lands
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) atomicAdd(&launches, 1u);
  if (seen >= 8) return;
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]);
  y[(size_t)m * N + n] = __float2half_rn(acc);
}
