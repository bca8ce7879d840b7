// roofline: family = gemm_residual
// roofline: kernel = gemm_residual_tiled
// roofline: grid = (cdiv(N, 16), cdiv(M, 16), 1)
// roofline: block = (16, 16, 1)
// roofline: smem = 0
//
// gemm_residual.cu: the textbook shared-memory tiled GEMM with bias + residual in the epilogue.
// C[M x N] = A[M x K] . B[K x N] + bias[N] + R[M x N], row-major fp16, fp32 accumulation, fp16
// out: a transformer block's output projection with its residual connection.
// A 16x16 block computes a 16x16 tile of C, one output per thread. Per K step of 16 each
// thread copies one element of A and one of B into shared memory (zero past the edges, so any
// M, N, K work), then does 16 FP32 FMAs; the bias and the thread's element of R are added
// before the one rounding to fp16. No tensor cores.
// What to expect: correct everywhere; a few percent of what cuBLASLt and the project's kernel
// reach (FP32 FMAs instead of tensor cores, two shared-memory loads per FMA), as the
// gemm_bias_gelu example.
#include <cuda_fp16.h>

constexpr int kTile = 16;

extern "C" __global__ void gemm_residual_tiled(const __half* A, const __half* B,
                                               const __half* bias, const __half* R, __half* C,
                                               int M, int N, int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = (row < M && k0 + tx < K) ? __half2float(A[(size_t)row * K + k0 + tx]) : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? __half2float(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    __syncthreads();  // before the next step overwrites As and Bs
  }

  if (row < M && col < N) {
    const size_t at = (size_t)row * N + col;
    C[at] = __float2half_rn(acc + __half2float(bias[col]) + __half2float(R[at]));
  }
}
