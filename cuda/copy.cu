// Memory kernels behind the measured bandwidth ceilings: copy (HBM read+write), a read-only
// reduction (HBM read), and a repeated read of a small working set (L2 read).
#include "common.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr size_t kSinkFloats = 8192;  // >= blocks of any grid below (1024 SMs x 8)

// v1: grid-stride copy, one 16-byte access per thread per step.
__global__ void copy_v1(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

// v2: four independent 16-byte loads in flight per thread before the stores (Little's law:
// HBM needs several MB in flight chip-wide).
__global__ void copy_v2(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n16) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n16; i += stride) dst[i] = src[i];
}

// v3: no grid-stride loop: one block per 2 x 256 16-byte words, each thread two loads in
// flight; the hardware block scheduler keeps every SM full to the end of the buffer.
__global__ void __launch_bounds__(kThreads) copy_v3(const uint4 *__restrict__ src,
                                                     uint4 *__restrict__ dst, size_t n16) {
  const size_t i = blockIdx.x * (size_t)(2 * kThreads) + threadIdx.x;
  if (i + kThreads < n16) {
    uint4 a = src[i], b = src[i + kThreads];
    dst[i] = a;
    dst[i + kThreads] = b;
  } else if (i < n16) {
    dst[i] = src[i];
  }
}

// The bytes past the last whole 16-byte word (and every byte when a pointer is unaligned).
__global__ void copy_bytes(const unsigned char *src, unsigned char *dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

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

int grid_for(size_t n16) {
  long long want = rl_ceil_div((long long)n16, kThreads);
  long long cap = (long long)rl_sm_count() * kBlocksPerSm;
  if (want < 1) want = 1;
  return (int)(want < cap ? want : cap);
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

}  // namespace

extern "C" int rl_copy_variant_count(void) { return 3; }

extern "C" const char *rl_copy_variant_name(int variant) {
  switch (variant) {
    case 1: return "v1: grid-stride 16-byte copy";
    case 2: return "v2: 16-byte copy, 4 loads in flight per thread";
    case 3: return "v3: one block per 512 words, no grid-stride loop";
    default: return nullptr;
  }
}

extern "C" int rl_copy(int variant, const void *src, void *dst, size_t bytes, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= 3);
  RL_REQUIRE(src && dst && bytes > 0);
  cudaStream_t s = rl_stream(stream);
  const bool vec = aligned16(src) && aligned16(dst);
  const size_t n16 = vec ? bytes / 16 : 0;
  if (n16 > 0) {
    auto *in = static_cast<const uint4 *>(src);
    auto *out = static_cast<uint4 *>(dst);
    if (variant == 1)
      copy_v1<<<grid_for(n16), kThreads, 0, s>>>(in, out, n16);
    else if (variant == 2)
      copy_v2<<<grid_for(n16), kThreads, 0, s>>>(in, out, n16);
    else
      copy_v3<<<(unsigned)rl_ceil_div((long long)n16, 2 * kThreads), kThreads, 0, s>>>(in, out,
                                                                                  n16);
    int st = rl_launch_status();
    if (st) return st;
  }
  const size_t done = n16 * 16;
  if (done < bytes) {
    copy_bytes<<<grid_for((bytes - done + 15) / 16), kThreads, 0, s>>>(
        static_cast<const unsigned char *>(src) + done, static_cast<unsigned char *>(dst) + done,
        bytes - done);
    return rl_launch_status();
  }
  return 0;
}

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
