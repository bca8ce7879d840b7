// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu with an undeclared identifier (`scale`) in the loop body.
// expected compile error at line 20
// The compiler's log must name this file's line 20 (nvcc and NVRTC both print
// `<file>(20): error: identifier "scale" is undefined`); the tool exits with code 2.
#include <cuda_fp16.h>

extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]) * scale;
  y[(size_t)m * N + n] = __float2half_rn(acc);
}
