// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu with the loop stopping one element of K early (k < K - 1),
// so every output misses its last product. It compiles and runs cleanly; verification against
// the float64 reference must fail (exit code 1, wrong result).
#include <cuda_fp16.h>

extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K - 1; ++k)  // BUG: should be k < K
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]);
  y[(size_t)m * N + n] = __float2half_rn(acc);
}
