// roofline: family = add_rmsnorm
// roofline: kernel = add_rmsnorm_rowblock
// roofline: grid = (rows, 1, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// add_rmsnorm.cu: fused residual add + RMSNorm, one block of 256 threads per row.
//   s = x + res in fp32;  h = fp16(s);  y = fp16(float(h) * rsqrt(mean(s^2) + eps) * w)
// The statistics come from the unrounded fp32 sum s; the output scales the fp16 h that was
// stored. Pass 1 writes h and sums s^2; the block reduces (warp shuffles, then a
// shared-memory exchange between warps); pass 2 reads h back (each thread only its own
// elements, so no barrier is needed) and writes y. Scalar fp16 accesses: any hidden size,
// 2-byte-aligned pointers. y and h must not overlap x, res or w.
// What to expect: correct everywhere; below copy bandwidth (2-byte accesses, h read back).
// Seen on an H200: ~2.0-2.3 TB/s (x, res read + y, h written) at hidden 1024-4096.
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

extern "C" __global__ void add_rmsnorm_rowblock(const __half* x, const __half* res,
                                                const __half* w, __half* y, __half* h,
                                                int rows, int hidden, float eps) {
  __shared__ float scratch[32];
  const int row = blockIdx.x;
  if (row >= rows) return;  // the whole block leaves together: no barrier is skipped
  const size_t base = (size_t)row * hidden;

  float ss = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float s = __half2float(x[base + i]) + __half2float(res[base + i]);
    h[base + i] = __float2half_rn(s);
    ss += s * s;
  }
  const float rstd = rsqrtf(block_sum(ss, scratch) / hidden + eps);

  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float h16 = __half2float(h[base + i]);  // this thread's own store from pass 1
    y[base + i] = __float2half_rn(h16 * rstd * __half2float(w[i]));
  }
}
