// What the copy variants and the read kernels share: the block shape, the grid of one
// resident wave at most, and the 16-byte alignment test.
#pragma once
#include "common.cuh"

namespace rlcopy {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

inline int grid_for(size_t n16) {
  long long want = rl_ceil_div((long long)n16, kThreads);
  long long cap = (long long)rl_sm_count() * kBlocksPerSm;
  if (want < 1) want = 1;
  return (int)(want < cap ? want : cap);
}

inline bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// A variant's copy of n16 16-byte words.
using WordCopy = void (*)(const uint4 *src, uint4 *dst, size_t n16, cudaStream_t s);

}  // namespace rlcopy
