// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu, except that thread 0 of block (0, 0) also stores through
// a wild pointer (address 0x10). The launch fails with an illegal-address error, which leaves
// the CUDA context unusable; the tool must report the fault and exit with code 3.
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
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
    ((volatile __half*)0x10)[0] = __float2half_rn(acc);  // BUG: wild pointer
}
