// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu, except that the thread of the last output (m = M-1,
// n = N-1) also writes the element after it, y[M*N]: one fp16 past the end of y. Every
// in-bounds output is still right and the write lands in the allocation's guard band, so
// nothing faults; the tool must notice the changed guard band (exit code 3).
#include <cuda_fp16.h>

extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]);
  y[(size_t)m * N + n] = __float2half_rn(acc);
  if (m == M - 1 && n == N - 1)
    y[(size_t)m * N + n + 1] = __float2half_rn(acc);  // BUG: y[M*N] is past the end of y
}
