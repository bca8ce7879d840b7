// roofline: family = gemm_bias_gelu
// roofline: kernel = gemm_bias_gelu_tiled
// roofline: grid = (cdiv(N, 16), cdiv(M, 16), 1)
// roofline: block = (16, 16, 1)
// roofline: smem = 0
//
// gemm_bias_gelu.cu: the textbook shared-memory tiled GEMM with bias + GELU in the epilogue.
// C[M x N] = gelu(A[M x K] . B[K x N] + bias[N]), row-major fp16, fp32 accumulation, fp16 out.
// gelu_kind 0: tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
// gelu_kind 1: erf form 0.5 x (1 + erf(x / sqrt(2))).
// A 16x16 block computes a 16x16 tile of C, one output per thread. Per K step of 16 each
// thread copies one element of A and one of B into shared memory (zero past the edges, so any
// M, N, K work), then does 16 FP32 FMAs. No tensor cores.
// What to expect: correct everywhere; a few percent of what cuBLAS and the project's fused
// kernel reach (FP32 FMAs instead of tensor cores, two shared-memory loads per FMA). Seen on
// an H200 at 4096^3: ~8 TFLOP/s.
#include <cuda_fp16.h>

constexpr int kTile = 16;

__device__ float gelu(float x, int gelu_kind) {
  if (gelu_kind == 0)
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
}

extern "C" __global__ void gemm_bias_gelu_tiled(const __half* A, const __half* B,
                                                const __half* bias, __half* C, int M, int N,
                                                int K, int gelu_kind) {
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

  if (row < M && col < N)
    C[(size_t)row * N + col] = __float2half_rn(gelu(acc + __half2float(bias[col]), gelu_kind));
}
