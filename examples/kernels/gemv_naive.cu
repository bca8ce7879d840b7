// roofline: family = gemv
// roofline: kernel = gemv_naive
// roofline: grid = (cdiv(N, 256), M, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// gemv_naive.cu: the simplest GEMV, and the template `roofline new gemv NAME` copies.
// y[M x N] = x[M x K] . W[K x N], all row-major fp16, fp32 accumulation, fp16 out.
// One thread per output y[m][n] (blockIdx.y = m), a plain loop over K. Correct for any shape.
// What to expect: far below HBM bandwidth. Each thread makes 2-byte loads of W (coalesced
// across the warp, but only 64 bytes per warp per load) and W is read again for every row m.
// Seen on an H200 at M = 1..16, N = K = 8192: ~0.2 TB/s, about 14x slower than cuBLAS.
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
}
