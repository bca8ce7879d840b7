// The split-K pair of the warp-specialized kernel (HGEMM v27, hgemm_27_split_k_pair.cuh): two
// groups of a cluster take the same output tile, the first half of its k-tiles and the second,
// and meet in shared memory. Each CTA finishes half of the tile's rows: in the CTA of group
// k_rank, consumer warpgroup k_rank keeps its rows and warpgroup 1 - k_rank hands its fp32 sums
// to the partner CTA (the other group's CTA at the same place along M), whose warpgroup of the
// same index holds the same rows and columns in the same registers.
//
// The hand-over goes through the receiving CTA's staging area (both warpgroups' store staging:
// 2 x 64 x BN fp16, the bytes of one warpgroup's 64 x BN fp32 sums; the sending warpgroup of
// that CTA never stores, the receiving one stages its results there only after it has read the
// sums): thread t of the sender writes its float4 j to chunk j x 128 + t by st.async, which
// counts its bytes on the receiver's pair_full mbarrier (conflict-free on both sides). Per tile:
//   receiver: its last TMA store has read the staging (wait_group.read) -> arrive on the
//             sender's pair_free (release, cluster scope) -> expect the bytes on pair_full ->
//             wait for pair_full -> add the sums -> the usual store (whose first barrier orders
//             every thread's reads before any staging write);
//   sender:   wait for pair_free (acquire, cluster scope) -> st.async its sums -> next tile.
// Each barrier completes once per tile, so both sides wait on the parity of the tiles they have
// exchanged (v27's dispatch gives a cluster one tile, one wave; the parities hold for more). Bytes of tile i + 1 cannot land in tile i's phase: the sender writes them only after
// the receiver has freed the buffer again, which it does after waiting for tile i's phase.
#pragma once
#include "gemm/ws_store_tma.cuh"
#include "tma.cuh"

namespace rlg {

// Group k_rank's share of the k-tiles [k0, k1) of a tile: the first half (rounded down) or the
// rest. The host gives the pair at least two k-tiles a tile, so neither share is empty.
__host__ __device__ __forceinline__ void ws_pair_k_range(int k_rank, int &k0, int &k1) {
  const int mid = k0 + (k1 - k0) / 2;
  if (k_rank == 0)
    k1 = mid;
  else
    k0 = mid;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The address of the same shared-memory offset in CTA `cta` of the cluster.
__device__ __forceinline__ unsigned ws_peer_addr(const void *p, int cta) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr(p)), "r"(cta));
  return r;
}

// One warpgroup's sums to the partner's staging (the receiver's 128 threads hold the same
// elements), once the partner has freed it.
template <class Cfg>
__device__ __forceinline__ void ws_pair_send(const float (&d)[Cfg::kAcc], float *area,
                                             unsigned long long *pair_free,
                                             unsigned long long *pair_full, int partner,
                                             unsigned parity) {
  static_assert(Cfg::kAcc % 4 == 0 && Cfg::kAcc * 128 * 4 <= Cfg::kStoreStageBytes,
                "a warpgroup's fp32 sums fit the partner's staging");
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n"
      " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}" ::"r"(smem_addr(pair_free)),
      "r"(parity)
      : "memory");
  const int t = threadIdx.x % 128;
  const unsigned dst = ws_peer_addr(area, partner) + 16u * t;
  const unsigned bar = ws_peer_addr(pair_full, partner);
#pragma unroll
  for (int j = 0; j < Cfg::kAcc / 4; ++j)
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
        "[%5];" ::"r"(dst + 2048u * j),
        "f"(d[4 * j]), "f"(d[4 * j + 1]), "f"(d[4 * j + 2]), "f"(d[4 * j + 3]), "r"(bar)
        : "memory");
}

// The partner's sums for this warpgroup's elements, added to d.
template <class Cfg>
__device__ __forceinline__ void ws_pair_receive(float (&d)[Cfg::kAcc], const float *area,
                                                unsigned long long *pair_free,
                                                unsigned long long *pair_full, int partner,
                                                unsigned parity) {
  const int t = threadIdx.x % 128;
  if (t == 0) {
    tma_store_wait_all<true>();  // this thread issued the warpgroup's last store
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                     ws_peer_addr(pair_free, partner))
                 : "memory");
    mbar_expect_tx(pair_full, Cfg::kAcc * 128 * 4);
  }
  mbar_wait(pair_full, parity);
  const float4 *src = reinterpret_cast<const float4 *>(area) + t;
#pragma unroll
  for (int j = 0; j < Cfg::kAcc / 4; ++j) {
    const float4 v = src[128 * j];
    d[4 * j] += v.x;
    d[4 * j + 1] += v.y;
    d[4 * j + 2] += v.z;
    d[4 * j + 3] += v.w;
  }
}
#endif

}  // namespace rlg
