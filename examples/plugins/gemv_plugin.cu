// gemv_plugin.cu: a GEMV host-launcher plugin, run by `roofline bench gemv --plugin`.
//
//   nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -o libgemv_plugin.so gemv_plugin.cu
//   roofline bench gemv --plugin ./libgemv_plugin.so --impl ours,user,cublas --interleave
//   roofline check --kernel gemv --plugin ./libgemv_plugin.so
//
// y[M x N] = x[M x K] . W[K x N], all row-major fp16, fp32 accumulation, fp16 out.
// The launcher has rl_gemv's C signature (cuda/gemv/gemv.h) and name, so no :SYMBOL is needed.
// The tool calls it with variant 0, workspace NULL and its own stream; the launcher only
// enqueues work there (no allocation, no synchronisation, so graph capture works) and
// returns 0 or a cudaError_t, which the tool names.
// The kernel: one thread per column n, each covering ROWS rows of x, so W is read
// ceil(M / ROWS) times instead of M times; 2-byte loads, any shape and alignment.
// What to expect: correct everywhere; far below cuBLAS and HBM bandwidth (64 bytes per warp
// per load of W). The point is the host code, which a --kernel-file cannot have.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int ROWS = 4;     // rows of x per thread
constexpr int THREADS = 256;

__global__ void gemv_rows(const __half* __restrict__ x, const __half* __restrict__ W,
                          __half* __restrict__ y, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m0 = blockIdx.y * ROWS;
  if (n >= N) return;
  float acc[ROWS] = {};
  for (int k = 0; k < K; ++k) {
    const float w = __half2float(W[(size_t)k * N + n]);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      if (m0 + r < M) acc[r] += __half2float(x[(size_t)(m0 + r) * K + k]) * w;
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (m0 + r < M) y[(size_t)(m0 + r) * N + n] = __float2half_rn(acc[r]);
}

}  // namespace

extern "C" int rl_gemv(int variant, const void* x, const void* W, void* y, void* workspace,
                       int M, int N, int K, void* stream) {
  (void)variant;    // 0: the tool has no variant to choose
  (void)workspace;  // NULL: this kernel needs no scratch
  if (x == nullptr || W == nullptr || y == nullptr || M < 1 || N < 1 || K < 1)
    return cudaErrorInvalidValue;
  const dim3 grid((N + THREADS - 1) / THREADS, (M + ROWS - 1) / ROWS);
  if (grid.y > 65535) return cudaErrorInvalidValue;
  gemv_rows<<<grid, THREADS, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __half*>(x), static_cast<const __half*>(W), static_cast<__half*>(y),
      M, N, K);
  return static_cast<int>(cudaGetLastError());
}
