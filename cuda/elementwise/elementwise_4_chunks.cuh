// Elementwise v4 "chunks" (best): copy v3's shape: one block per 2 x 256 16-byte vectors, both
// loads issued before any math, no grid-stride loop, no shared memory (the block scheduler does
// the load balancing).
//
// Measured on the H200 (docs/perf-log.md, elementwise; R3, 1 GiB): ReLU 4097 GB/s, GELU tanh
// 4084 (predicted 97-99% / 96-98% of the copy ceiling); report F, cold, one launch: ReLU 4117
// GB/s = 99.7%, GELU 4113 = 99.6% (target >= 95%: met).
#pragma once
#include "elementwise/elementwise_2_vectors.cuh"

namespace rlew {

// copy_v3's shape. No grid-stride loop: block b owns vectors [b kChunk, (b + 1) kChunk),
// kChunk = kV4Vecs x 256; thread t loads its kV4Vecs vectors (stride 256 inside the chunk) before
// any math or store, then computes and stores them. The hardware block scheduler refills each SM
// as blocks retire, so every SM stays busy to the end of the buffer, and no shared memory or
// registers are tied up in a software pipeline. Plain loads (not .nc): x may equal y, and every
// element is read and written by the same thread. The scalar tail goes to the first threads.
constexpr int kV4Vecs = 2;  // 16-byte loads in flight per thread (copy_v3 uses 2)
constexpr long long kV4Chunk = (long long)kV4Vecs * kThreads;
constexpr int kV4BlocksPerSm = 8;  // 2048 threads/SM (32 registers): 64 KiB of loads in flight

template <class Op>
__global__ void __launch_bounds__(kThreads, kV4BlocksPerSm)
    ew_chunk(const __half *x, __half *y, size_t n, Op op) {
  const uint4 *xv = reinterpret_cast<const uint4 *>(x);
  uint4 *yv = reinterpret_cast<uint4 *>(y);
  const size_t nvec = n / 8;
  const size_t i = (size_t)blockIdx.x * kV4Chunk + threadIdx.x;
  if (i + (kV4Vecs - 1) * kThreads < nvec) {
    uint4 v[kV4Vecs];
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u) v[u] = xv[i + u * kThreads];
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u) yv[i + u * kThreads] = apply8(v[u], op);
  } else {
#pragma unroll
    for (int u = 0; u < kV4Vecs; ++u)
      if (i + u * kThreads < nvec) yv[i + u * kThreads] = apply8(xv[i + u * kThreads], op);
  }
  scalar_tail(x, y, n, op);
}

// One block per chunk (at least one block: n < 8 is all tail). A grid past 2^31 - 1 blocks
// (> 8 Ti elements) would not launch; such sizes take v2's grid-stride kernel.
template <class Ref, class Fast>
int elementwise_v4(const __half *x, __half *y, size_t n, cudaStream_t s) {
  const long long chunks = rl_ceil_div((long long)(n / 8), kV4Chunk);
  if (!aligned16(x, y) || chunks > 0x7fffffffLL) return elementwise_v2<Ref, Fast>(x, y, n, s);
  ew_chunk<<<(unsigned)(chunks > 0 ? chunks : 1), kThreads, 0, s>>>(x, y, n, Fast{});
  return rl_launch_status();
}

}  // namespace rlew
