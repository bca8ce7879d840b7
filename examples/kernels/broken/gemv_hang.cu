// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// BROKEN ON PURPOSE: gemv_naive.cu, except that thread 0 of block (0, 0) spins for 30 s, far
// past any sane time limit: to the tool it is a kernel that never finishes. The tool must
// stop waiting after ROOFLINE_SYNC_TIMEOUT_S (default 120 s; the GPU test sets a few
// seconds), keep what it measured before, and exit with code 3. The spin ends by itself so
// that the GPU is free again half a minute later (a kernel spinning forever keeps it busy
// until the driver stops it, which on driver 580 took minutes).
#include <cuda_fp16.h>

extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    // BUG: waits 30 s on the GPU's nanosecond timer (read anew in every iteration).
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < 30ull * 1000 * 1000 * 1000);
  }
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[(size_t)m * K + k]) * __half2float(W[(size_t)k * N + n]);
  y[(size_t)m * N + n] = __float2half_rn(acc);
}
