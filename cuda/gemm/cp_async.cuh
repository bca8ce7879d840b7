// cp.async (sm_80+): 16-byte global->shared copies that do not block the issuing warp, the
// copies of every pipelined WMMA step (v3 on).
#pragma once
#include <cuda_fp16.h>

namespace rlg {

// src-size 0 reads nothing and zero-fills the 16 destination bytes (the edge tiles).
__device__ __forceinline__ void cp_async16(void *smem_dst, const void *gmem_src, bool pred) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  const int src_bytes = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
}
// The same without the predicate, to a shared-space address (v11's lean loop: whole tiles).
__device__ __forceinline__ void cp_async16_whole(unsigned smem_dst, const half *gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_dst), "l"(gmem_src)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace rlg
