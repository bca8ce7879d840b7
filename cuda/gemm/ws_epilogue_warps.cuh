// The warp-specialized kernel's epilogue warps (GEMM+bias+GELU v22,
// gemm_bias_gelu_22_epilogue_warps.cuh): warps 1-3 of the producer warpgroup, idle in every
// other step, apply the second half of a split functor (kSplitApply: pre, then post) to a
// tile staged in shared memory and hand it to the TMA unit, while the consumer warpgroups go
// on to their next tile's wgmmas.
//
// A consumer warpgroup's tile, but its CTA's last: pre (for GELU: the bias added, halved for
// the tanh form) in registers, rounded to T and written by stmatrix into its staging, as
// ws_store_tma.cuh writes finished results (the 256-wide tile's second half in the ring stage
// its last k-tile read, held from the producer); then it arrives on staged[w] and leaves. The
// epilogue warps wait for both warpgroups' tiles, apply post (the tanh or erf form) to every
// staged element in place, the held half first, and their thread 0 stores each part by TMA;
// once a part's stores have read shared memory it gives the held stage back to the producers
// and frees the warpgroups' staging (free[w]) for their next tile. The CTA's last tile has no
// main loop left to run under, so its consumers finish it as v21 does: all of their threads
// on the SFU rather than three warps.
//
// Cost: post sees pre rounded to T once (as v16's store under the next tile: ~1 ulp more error
// at most); the 256-wide tile's held stage goes back to the producer after the epilogue warps'
// first half (~1.4 k cycles of their tanh) instead of at the next tile's first k-tile.
// Registers: the epilogue warps run within the producer warpgroup's 40.
#pragma once
#include <type_traits>

#include "gemm/elem.cuh"
#include "gemm/ws_store_tma.cuh"

namespace rlg {

// Whether a functor splits its apply into pre (in the consumers' registers) and post (on pre
// rounded to T, by the epilogue warps): kSplitApply: true.
template <class Epi, class = void>
struct SplitsApply : std::false_type {};
template <class Epi>
struct SplitsApply<Epi, std::void_t<decltype(Epi::kSplitApply)>>
    : std::bool_constant<Epi::kSplitApply> {};

// Warps 1..3 of the producer warpgroup (warp 0's lane 0 issues the loads).
constexpr int kEpiWarpThreads = 96;
// Named barriers beside 0 (__syncthreads), 1-2 (each consumer warpgroup) and 3 (both):
// staged[w] = 4 + w (consumer warpgroup w's 128 threads arrive, the epilogue warps sync),
// free[w] = 6 + w (the epilogue warps arrive, warpgroup w syncs), 8 (the epilogue warps).
constexpr int kEpiStagedBar = 4, kEpiFreeBar = 6, kEpiOwnBar = 8;
constexpr int kEpiPairThreads = 128 + kEpiWarpThreads;

// The ring stage of a tile's last k-tile (the held stage) for a tile that starts at stage s,
// and s moved on past the tile: the consumers' walk of its k_tiles k-tiles, which the epilogue
// warps follow without waiting on the ring (ws_epilogue_warps_model.cuh checks it on the host).
__host__ __device__ __forceinline__ int ws_epi_tile_held(int &s, int k_tiles, int stages) {
  const int held = (s + k_tiles - 1) % stages;
  s = (s + k_tiles) % stages;
  return held;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// bar.arrive releases this thread's prior shared-memory writes to the threads that bar.sync
// on the same barrier (PTX: arrive has release, sync acquire semantics).
__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Consumer warpgroup cw's 64 x BN results: pre into the staging (the layout and parts of
// ws_store_tma), then staged[cw]. First the staging must be free of its last tile (free[cw]).
// v23 (Cfg::kEpiHeldByConsumers): the second half, in the held stage, through the whole
// functor and to C by this warpgroup's thread 0, as ws_store_tma does.
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_stage_for_epilogue_warps(
    float (&d)[Cfg::kAcc], unsigned char *stage, unsigned char *second, const unsigned *col_ops,
    const Epi &epi, int cw, [[maybe_unused]] const CUtensorMap *cmap, [[maybe_unused]] int M,
    [[maybe_unused]] int N, [[maybe_unused]] int row0, [[maybe_unused]] int col0) {
  static_assert(SplitsApply<Epi>::value && ColOperandEarly<Epi>::value,
                "v22: a split functor whose column operand is in registers");
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int mrow = 16 * warp + lane % 8 + 8 * ((lane / 8) % 2);
  constexpr int kGroups = Cfg::kStoreCols / 8;
  named_sync(kEpiFreeBar + cw, kEpiPairThreads);
#pragma unroll
  for (int part = 0; part < Cfg::BN / Cfg::kStoreCols; ++part) {
    unsigned char *const stage_p = Cfg::kHalfInRing && part == 1 ? second : stage;
    // The held stage: both warpgroups' last wgmmas have read it.
    if (Cfg::kHalfInRing && part == 1)
      asm volatile("bar.sync %0, 256;" ::"n"(kWsConsumersBar) : "memory");
#pragma unroll
    for (int j = part * kGroups; j < (part + 1) * kGroups; j += 2) {
      float v[2][4];
#pragma unroll
      for (int g = 0; g < 2; ++g) {
        const unsigned raw = col_ops[j + g];
        const float2 b =
            Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&raw));
        const float op0 = epi.prep(b.x), op1 = epi.prep(b.y);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float x = d[4 * (j + g) + q], op = q % 2 ? op1 : op0;
          v[g][q] = Cfg::kEpiHeldByConsumers && part == 1 ? epi.apply1(x, op, 0, 0)
                                                          : epi.pre(x, op);
        }
      }
      const int cg = j - part * kGroups + (lane / 8) / 2;
      const unsigned addr = smem_addr(stage_p) + ws_staging_offset(cg, mrow);
      stmatrix_x4(addr, pack_pair<T>(v[0][0], v[0][1]), pack_pair<T>(v[0][2], v[0][3]),
                  pack_pair<T>(v[1][0], v[1][1]), pack_pair<T>(v[1][2], v[1][3]));
    }
    if constexpr (Cfg::kEpiHeldByConsumers)
      if (part == 1) ws_hand_part_to_tma<Cfg>(stage_p, cmap, M, N, row0, col0, 1, 1 + cw, t);
  }
  named_arrive(kEpiStagedBar + cw, kEpiPairThreads);
}

// post on 8 staged elements (16 bytes) in place.
template <class T, class Epi>
__device__ __forceinline__ void ws_post_chunk(uint4 *p, const Epi &epi) {
  uint4 v = *p;
  unsigned *w = reinterpret_cast<unsigned *>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&w[i]));
    w[i] = pack_pair<T>(epi.post(f.x), epi.post(f.y));
  }
  *p = v;
}

// The epilogue warps' loop (e: 0..95, the thread's index among them): the CTA's tiles as the
// consumers walk them, all but the last. The ring's position follows the consumers' (every
// tile k_tiles k-tiles), so held is the stage of the tile's last k-tile.
template <class Cfg, class T, class Epi, class Sched, class Release>
__device__ __forceinline__ void ws_epilogue_warps(unsigned char *ring, unsigned char *staging,
                                                  const CUtensorMap *cmap, const Sched &sched,
                                                  int cluster, int clusters, int k_tiles,
                                                  int m_rank, int M, int N, const Epi &epi,
                                                  Release &&release_held) {
  constexpr int kParts = Cfg::BN / Cfg::kStoreCols;
  constexpr int kChunks = 64 * Cfg::kStoreCols / 8;  // 16-byte chunks of a warpgroup's part
  constexpr int kWgBytes = 64 * Cfg::kStoreCols * 2;
  const int e = static_cast<int>(threadIdx.x) - 32;
  if (cluster >= sched.total) return;  // no tile: the consumers never wait on free[]
  named_arrive(kEpiFreeBar + 0, kEpiPairThreads);
  named_arrive(kEpiFreeBar + 1, kEpiPairThreads);
  int s = 0;
  for (int t = cluster; t + clusters < sched.total; t += clusters) {
    const int held = ws_epi_tile_held(s, k_tiles, Cfg::kStages);
    int m0, n0;
    sched.at(t, m_rank, m0, n0);
    named_sync(kEpiStagedBar + 0, kEpiPairThreads);
    named_sync(kEpiStagedBar + 1, kEpiPairThreads);
    // The held half first: the producer waits for its stage (v23: the consumers store it).
#pragma unroll 1
    for (int part = Cfg::kEpiHeldByConsumers ? 0 : kParts - 1; part >= 0; --part) {
      unsigned char *const base = Cfg::kHalfInRing && part == 1
                                      ? ring + held * Cfg::kStageBytes + Cfg::kABytes
                                      : staging;
#pragma unroll 1
      for (int cw = 0; cw < 2; ++cw) {
        uint4 *const p = reinterpret_cast<uint4 *>(base + cw * kWgBytes);
#pragma unroll 2
        for (int i = e; i < kChunks; i += kEpiWarpThreads) ws_post_chunk<T>(p + i, epi);
      }
      fence_proxy_async_shared();
      named_sync(kEpiOwnBar, kEpiWarpThreads);
      if (e == 0) {
#pragma unroll 1
        for (int cw = 0; cw < 2; ++cw) {
          const int row0 = m0 + 64 * cw;
#pragma unroll
          for (int b = 0; b < Cfg::kStoreCols / 64; ++b) {
            const int c = n0 + part * Cfg::kStoreCols + 64 * b;
            if (row0 < M && c < N) tma_store_2d(cmap, base + cw * kWgBytes + b * 8192, c, row0);
          }
        }
        tma_store_commit();
      }
    }
    if (e == 0) {
      if constexpr (Cfg::kHalfInRing && !Cfg::kEpiHeldByConsumers) {
        // The held half's stores (the older group) have read the stage.
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        release_held(held);
      }
      tma_store_wait_all<true>();
    }
    named_sync(kEpiOwnBar, kEpiWarpThreads);
    named_arrive(kEpiFreeBar + 0, kEpiPairThreads);
    named_arrive(kEpiFreeBar + 1, kEpiPairThreads);
  }
}
#endif

}  // namespace rlg
