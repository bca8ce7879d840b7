// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu, except that thread 0 of block (0, 0) never finishes: it
// spins until x[0] changes, which it never does (a volatile read in every iteration keeps
// the compiler from deleting the loop). The kernel never completes; the tool must stop it
// with its time limit and exit with code 3.
#include <cuda_fp16.h>

extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    // BUG: spins forever. x is never written, so x[0] never changes, but the volatile read
    // is made anew in every iteration and the compiler cannot prove that: the loop stays.
    volatile const unsigned short* flag = (volatile const unsigned short*)x;
    const unsigned short first = flag[0];
    while (flag[0] == first) {
    }
  }
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]);
  y[(size_t)m * N + n] = __float2half_rn(acc);
}
