// roofline: family = layernorm
// roofline: kernel = layernorm_two_pass
// roofline: grid = (rows, 1, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// layernorm.cu: LayerNorm, one block of 256 threads per row.
// y = (x - mean) / sqrt(var + eps) * gamma + beta per row; fp16 in/out, fp32 statistics,
// biased variance. The row is read from global memory three times: the sum (mean), the sum of
// squared deviations (variance, no E[x^2] - mean^2 cancellation), and the output. Each sum
// is reduced over the block by warp shuffles and a shared-memory exchange between warps.
// Scalar fp16 accesses, so any hidden size and 2-byte-aligned pointers work.
// What to expect: correct everywhere; well below copy bandwidth (the 2nd and 3rd reads mostly
// hit L1/L2, but 2-byte accesses and a barrier-bound block per row leave HBM partly idle).
// Seen on an H200: ~0.9-1.2 TB/s (x read + y written) at hidden 1024-4096, copy ~4 TB/s.
#include <cuda_fp16.h>

// The sum of v over the block (blockDim.x a multiple of 32, at most 1024), returned to every
// thread. scratch holds 32 floats and is free again when this returns.
__device__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < (int)(blockDim.x / 32); ++w) total += scratch[w];
  __syncthreads();
  return total;
}

extern "C" __global__ void layernorm_two_pass(const __half* x, const __half* gamma,
                                              const __half* beta, __half* y, int rows,
                                              int hidden, float eps) {
  __shared__ float scratch[32];
  const int row = blockIdx.x;
  if (row >= rows) return;  // the whole block leaves together: no barrier is skipped
  const __half* xr = x + (size_t)row * hidden;
  __half* yr = y + (size_t)row * hidden;

  float s = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) s += __half2float(xr[i]);
  const float mean = block_sum(s, scratch) / hidden;

  float q = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float d = __half2float(xr[i]) - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_sum(q, scratch) / hidden + eps);

  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = (__half2float(xr[i]) - mean) * rstd;
    yr[i] = __float2half_rn(v * __half2float(gamma[i]) + __half2float(beta[i]));
  }
}
