// The read kernels behind the measured ceilings: a read-only reduction (HBM read), a repeated
// read of a small working set (L2 read), and an empty kernel (the launch floor).
#include "copy/copy.h"
#include "copy/copy_common.cuh"

namespace {

using rlcopy::aligned16;
using rlcopy::grid_for;
using rlcopy::kThreads;

constexpr size_t kSinkFloats = 8192;  // >= blocks of any grid (1024 SMs x 8)

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Writes the block's folded value so the loads cannot be optimized away.
__device__ __forceinline__ void block_sink(unsigned acc, float *sink) {
  __shared__ unsigned part[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned t = 0;
    for (int w = 0; w < kThreads / 32; ++w) t ^= part[w];
    sink[blockIdx.x] = __uint_as_float(t & 0x007fffffu);  // a finite float whatever the bits
  }
}

__global__ void __launch_bounds__(kThreads) read_once(const uint4 *__restrict__ src, size_t n16,
                                                       float *sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; i < n16; i += stride) acc ^= fold(src[i]);
  block_sink(acc, sink);
}

// Each block walks the whole (L2-resident) working set `passes` times from its own offset,
// so all SMs hit L2 at once and no block depends on another. __ldcg skips L1: every load
// is served by L2. n16 is a multiple of 4 * kThreads, so a chunk never straddles the end.
__global__ void __launch_bounds__(kThreads) read_repeat(const uint4 *__restrict__ src,
                                                         size_t n16, int passes, float *sink) {
  unsigned acc = 0;
  const size_t chunk = 4 * kThreads;
  const size_t start = (blockIdx.x * chunk) % n16;
  for (int p = 0; p < passes; ++p) {
    for (size_t base = 0; base < n16; base += chunk) {
      size_t b = start + base;
      if (b >= n16) b -= n16;
      const uint4 *q = src + b + threadIdx.x;
      uint4 v0 = __ldcg(q), v1 = __ldcg(q + kThreads), v2 = __ldcg(q + 2 * kThreads),
            v3 = __ldcg(q + 3 * kThreads);
      acc ^= fold(v0) ^ fold(v1) ^ fold(v2) ^ fold(v3);
    }
  }
  block_sink(acc, sink);
}

__global__ void empty_kernel() {}

}  // namespace

extern "C" size_t rl_read_sink_floats(void) { return kSinkFloats; }

extern "C" int rl_read(const void *src, size_t bytes, float *sink, void *stream) {
  RL_REQUIRE(src && sink && bytes >= 16 && bytes % 16 == 0 && aligned16(src));
  const size_t n16 = bytes / 16;
  read_once<<<grid_for(n16), kThreads, 0, rl_stream(stream)>>>(static_cast<const uint4 *>(src),
                                                               n16, sink);
  return rl_launch_status();
}

extern "C" int rl_read_repeat(const void *src, size_t bytes, int passes, float *sink,
                              double *bytes_read, void *stream) {
  RL_REQUIRE(src && sink && bytes_read && aligned16(src) && passes >= 1);
  RL_REQUIRE(bytes >= 16 * 4 * kThreads && bytes % (16 * 4 * kThreads) == 0);
  const int grid = rl_sm_count() * 4;
  *bytes_read = (double)grid * passes * (double)bytes;
  read_repeat<<<grid, kThreads, 0, rl_stream(stream)>>>(static_cast<const uint4 *>(src),
                                                         bytes / 16, passes, sink);
  return rl_launch_status();
}

extern "C" int rl_empty(void *stream) {
  empty_kernel<<<1, 32, 0, rl_stream(stream)>>>();
  return rl_launch_status();
}
