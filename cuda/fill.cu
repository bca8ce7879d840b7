// Buffer fills: seeded uniform random fp16 (inputs are never zeros) and a bit pattern
// (outputs are poisoned with NaN before every checked run, so unwritten elements show).
#include <cuda_bf16.h>

#include "common.cuh"

namespace {

// splitmix64: a counter-based generator, so element i needs no state from element i-1.
__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

template <typename T>
__global__ void fill_uniform(T *p, size_t n, unsigned long long seed, float lo, float hi) {
  const unsigned long long key = mix(seed);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float u = (float)(mix(key ^ i) >> 40) * (1.0f / 16777216.0f);  // 24 bits -> [0, 1)
    store(p + i, lo + (hi - lo) * u);
  }
}

__global__ void fill_bits(unsigned short *p, size_t n, unsigned short bits) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = bits;
}

int fill_grid(size_t n) {
  long long want = rl_ceil_div((long long)n, 256);
  long long cap = (long long)rl_sm_count() * 16;
  return (int)(want < cap ? (want < 1 ? 1 : want) : cap);
}

}  // namespace

extern "C" int rl_fill_uniform_f16(void *p, size_t n, unsigned long long seed, float lo, float hi,
                                   void *stream) {
  RL_REQUIRE(p && n > 0 && lo < hi);
  fill_uniform<<<fill_grid(n), 256, 0, rl_stream(stream)>>>(static_cast<__half *>(p), n, seed, lo,
                                                            hi);
  return rl_launch_status();
}

extern "C" int rl_fill_uniform_bf16(void *p, size_t n, unsigned long long seed, float lo,
                                    float hi, void *stream) {
  RL_REQUIRE(p && n > 0 && lo < hi);
  fill_uniform<<<fill_grid(n), 256, 0, rl_stream(stream)>>>(static_cast<__nv_bfloat16 *>(p), n,
                                                            seed, lo, hi);
  return rl_launch_status();
}

extern "C" int rl_fill_bits_u16(void *p, size_t n, unsigned short bits, void *stream) {
  RL_REQUIRE(p && n > 0);
  fill_bits<<<fill_grid(n), 256, 0, rl_stream(stream)>>>(static_cast<unsigned short *>(p), n,
                                                         bits);
  return rl_launch_status();
}
