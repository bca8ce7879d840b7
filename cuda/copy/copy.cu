// Copy: the variant table. Each variant copies the 16-byte aligned words its own way
// (cuda/copy/copy_N_<name>.cuh); the bytes past them, or all bytes of an unaligned copy, go
// through one byte kernel.
#include "copy/copy.h"
#include "copy/copy_1_grid_stride.cuh"
#include "copy/copy_2_four_loads.cuh"
#include "copy/copy_3_blocks.cuh"
#include "variant_table.cuh"

namespace {

using rlcopy::grid_for;
using rlcopy::kThreads;

// The bytes past the last whole 16-byte word (and every byte when a pointer is unaligned).
__global__ void copy_bytes(const unsigned char *src, unsigned char *dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

struct Variant {
  int id;
  const char *name;
  const char *summary;
  rlcopy::WordCopy copy;
};

constexpr Variant kVariants[] = {
    {1, "grid_stride", "grid-stride 16-byte copy", rlcopy::copy_grid_stride},
    {2, "four_loads", "16-byte copy, 4 loads in flight per thread", rlcopy::copy_four_loads},
    {3, "blocks", "best: one block per 512 words, no grid-stride loop", rlcopy::copy_blocks},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

extern "C" int rl_copy_variant_count(void) { return rl_table::count(kVariants); }

extern "C" const char *rl_copy_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_copy_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}

extern "C" int rl_copy(int variant, const void *src, void *dst, size_t bytes, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr);
  RL_REQUIRE(src && dst && bytes > 0);
  cudaStream_t s = rl_stream(stream);
  const bool vec = rlcopy::aligned16(src) && rlcopy::aligned16(dst);
  const size_t n16 = vec ? bytes / 16 : 0;
  if (n16 > 0) {
    v->copy(static_cast<const uint4 *>(src), static_cast<uint4 *>(dst), n16, s);
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
