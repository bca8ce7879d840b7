// add_rmsnorm_two_kernels.cu: an add_rmsnorm plugin that launches two kernels in sequence,
// something only host code can do (a --kernel-file is one kernel, one launch).
//
//   nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -o libadd_rmsnorm_two_kernels.so add_rmsnorm_two_kernels.cu
//   roofline bench add_rmsnorm --plugin ./libadd_rmsnorm_two_kernels.so --impl ours,user --interleave
//
// The unfused pair, the baseline fusion is measured against:
//   1. residual_add: h = fp16(x + res), every element, a grid-stride loop;
//   2. rmsnorm_rows: one block per row reads h back, y = fp16(h * rsqrt(mean(h^2) + eps) * w).
// The family's definition (cuda/add_rmsnorm/add_rmsnorm.h) takes the statistics over the
// fp32 sum before rounding; this pair takes them over the stored fp16 h, which moves
// mean(h^2) by about one fp16 ulp at most, well inside the family's tolerance.
// The launcher has rl_add_rmsnorm's C signature and name; the tool passes variant 0 and its
// stream, and the two launches are ordered on that stream (and captured together in a graph).
// What to expect: correct everywhere; slower than the fused kernel, since h goes to HBM and
// comes back (x and res read, h written and read, y written: 5 passes instead of 4).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int THREADS = 256;

__global__ void residual_add(const __half* __restrict__ x, const __half* __restrict__ res,
                             __half* __restrict__ h, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    h[i] = __float2half_rn(__half2float(x[i]) + __half2float(res[i]));
}

// The sum of v over the block (THREADS threads), returned to every thread.
__device__ float block_sum(float v) {
  __shared__ float scratch[THREADS / 32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < THREADS / 32; ++w) total += scratch[w];
  return total;
}

__global__ void rmsnorm_rows(const __half* __restrict__ h, const __half* __restrict__ w,
                             __half* __restrict__ y, int hidden, float eps) {
  const size_t row = (size_t)blockIdx.x * hidden;
  float sq = 0.0f;
  for (int j = threadIdx.x; j < hidden; j += THREADS) {
    const float v = __half2float(h[row + j]);
    sq += v * v;
  }
  const float rstd = rsqrtf(block_sum(sq) / hidden + eps);
  for (int j = threadIdx.x; j < hidden; j += THREADS)
    y[row + j] = __float2half_rn(__half2float(h[row + j]) * rstd * __half2float(w[j]));
}

}  // namespace

extern "C" int rl_add_rmsnorm(int variant, const void* x, const void* res, const void* w,
                              void* y, void* h, int rows, int hidden, float eps, void* stream) {
  (void)variant;  // 0: the tool has no variant to choose
  if (x == nullptr || res == nullptr || w == nullptr || y == nullptr || h == nullptr ||
      rows < 1 || hidden < 1 || !(eps > 0.0f))
    return cudaErrorInvalidValue;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t n = (size_t)rows * hidden;
  const size_t blocks = (n + THREADS - 1) / THREADS;
  residual_add<<<(unsigned)(blocks < 4096 ? blocks : 4096), THREADS, 0, s>>>(
      static_cast<const __half*>(x), static_cast<const __half*>(res), static_cast<__half*>(h),
      n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return static_cast<int>(e);
  rmsnorm_rows<<<rows, THREADS, 0, s>>>(static_cast<const __half*>(h),
                                        static_cast<const __half*>(w), static_cast<__half*>(y),
                                        hidden, eps);
  return static_cast<int>(cudaGetLastError());
}
