// HGEMM v27 "split_k_pair": v23, with the 65..512-row shapes where v23 runs its 128 x 64 tile
// on 128 x 128 tiles whose k-tiles are split between two groups of a cluster: each group takes
// half of them, and the partial sums meet in the receiving CTA's shared memory (st.async into
// its staging, ws_split_k_pair.cuh), each CTA finishing half of the tile's rows. A group is a
// pair stacked along M sharing B by multicast, as v23's (a cluster of 4), or one CTA (a cluster
// of 2; ROOFLINE_WS_PAIR_MCAST=1, for the calibration). Lean descriptors, 6 stages of 32 KB,
// v14's store. Elsewhere v23's paths.
//
// Why: at 256x4096² the 128 x 64 tile is ~12% behind cuBLAS (S43d, S44a: 21.1-21.4 us against
// 18.4-20.4 on an H100), and v26's 64 x 128 tile (cuBLAS's own, in our frame) was slower still.
// The 128 x 128 tile runs faster per FLOP: at 512x4096x2048, where 128 CTAs each compute one
// 128 x 128 x 2048 tile (exactly a split pair's share at 256x4096²), v23 forced to it takes
// 17.8-18.2 us against 21.1-21.4 at its 64-wide choice (S44c): its n128 wgmmas read 3/4 of the
// shared memory per FLOP of n64's, and a CTA reads 24 KB from L2 per 2.1 MFLOP instead of 20
// KB per 1.05. Without a split, 256x4096² has only 64 such tiles for 132 SMs.
//
// Prediction (before a GPU run): 256x4096² ~18.5-19 us on an H100 (the 512-row proxy's 18 us
// plus ~0.5 us for the hand-over: 32 KB per CTA through the SM-to-SM network), ~1.0x cuBLAS,
// +12% over v23; 256x4096x11008 likewise; every other shape v23's kernels.
// Measured (S44d, an H100, one process per line, v23 / v27 / cuBLAS interleaved; µs): 256x4096²
// 21.1 / 21.2 / 20.3, 21.3 / 21.5 / 19.5, 21.2 / 21.4 / 20.5 (-0.5..-1%); the groups of one CTA
// (ROOFLINE_WS_PAIR_MCAST=1) 21.2 / 23.3 / 20.4, 21.1 / 23.2 / 20.4 (-10%); 256x4096x11008
// 46.2 / 46.2 / 45.9, 46.3 / 46.2 / 46.8 (level), one-CTA groups 46.3 / 47.9 / 46.8. Not the
// proxy's 18 us: 512x4096x2048 reads 22 MB from DRAM, 256x4096² 36 MB (B, 32 MB, streamed once),
// and both the 128 x 64 tile and the split 128 x 128 one take ~21 us there, on the H200 too
// (v22's 64-wide tile 21.1 us in S43a, cuBLAS 17.6): what bounds them is neither the tile's
// shared-memory nor its L2 bytes. Correct (`gpu_gemm every_hgemm_variant`, the sanitizer's v27
// lines: two k-tiles, every dimension off the tile, a CTA partly below M). A step, not best.
#pragma once
#include <vector>

#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, its cluster doubled along K: two groups of Base::kCluster CTAs.
template <class Base>
struct WsCfgSplitK : Base {
  static constexpr int kSplitK = 2, kCluster = 2 * Base::kCluster, kMcast = Base::kCluster;
  static_assert(Base::kTmaStore && !Base::kStreamK && !Base::kStageHalves && !Base::kPingpong &&
                    !Base::kClusterN && !Base::kHalfInRing && !Base::kStoreUnderNext &&
                    !Base::kWgRelease && Base::kMBlocks == 1,
                "v27: v14's store and whole staging, cooperative whole tiles, B shared along M");
};

// v27's tiles: 128 x 128, 6 stages of 32 KB + 32 KB of staging + 1 KB (225 KB), lean
// descriptors; the pair's groups two CTAs along M sharing B (a cluster of 4) or one.
using WsPairK = WsCfgSplitK<WsCfgLeanDesc<WsCfg<128, 128, 6, 2, 8, true>>>;
using WsPairKSolo = WsCfgSplitK<WsCfgLeanDesc<WsCfg<128, 128, 6, 1, 8, true>>>;

// ROOFLINE_WS_PAIR_MCAST: 1 runs the groups of one CTA (read once); else pairs.
inline bool ws_pair_solo() {
  static const bool solo = [] {
    const char *s = std::getenv("ROOFLINE_WS_PAIR_MCAST");
    return s != nullptr && s[0] == '1';
  }();
  return solo;
}

// Cfg's split tiles where v23 would run its 64-wide tile at 65..512 rows, K holds two k-tiles
// or more, and the cluster tiles fit the resident clusters in one wave with at least half of
// their area on C; *launched false: it did not apply.
template <class Cfg, class Epi, class T>
int try_ws_pair_k_cfg(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                      cudaStream_t stream, bool *launched) {
  const int clusters = ws_resident_clusters<Cfg, Epi, T>();
  const WsSchedule<Cfg> sched(M, N);
  if (clusters <= 0 || sched.total > clusters) return 0;
  const double area = static_cast<double>(sched.total) * Cfg::kMcast * Cfg::BM * Cfg::BN;
  if (2.0 * M * N < area) return 0;
  return launch_ws<Cfg>(A, B, C, M, N, K, epi, stream, launched);
}

template <class Epi, class T>
int try_ws_pair_k(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                  cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < 65 || M > 512 || K <= kWgmmaKTile || StagesOperand<Epi>::value) return 0;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  if (ws_width_for<WsWidthsN64MidM, Epi, T>(M, N) != 64) return 0;
  return ws_pair_solo() ? try_ws_pair_k_cfg<WsPairKSolo>(A, B, C, M, N, K, epi, stream, launched)
                        : try_ws_pair_k_cfg<WsPairK>(A, B, C, M, N, K, epi, stream, launched);
}

// v27's work split walked on the host with the kernel's code (WsSchedule by the rank in the
// multicast group, ws_pair_k_range by the group) for an M x N x (k_tiles k-tiles) problem:
// every tile of C is taken once by each of the two groups, the group's CTAs share B (the same
// columns, neighbouring rows), and the groups' k-tile ranges are non-empty and together cover
// [0, k_tiles) once. 0: all hold; 1: bad arguments; 2-5: which failed.
template <class Cfg>
int ws_pair_check(int M, int N, int k_tiles) {
  if (M <= 0 || N <= 0 || M > (1 << 20) || N > (1 << 20) || k_tiles < 2) return 1;
  const WsSchedule<Cfg> sched(M, N);
  const int m_tiles = (M + Cfg::BM - 1) / Cfg::BM, n_tiles = (N + Cfg::BN - 1) / Cfg::BN;
  std::vector<int> seen(static_cast<size_t>(m_tiles) * n_tiles, 0);
  for (int t = 0; t < sched.total; ++t) {
    for (int g = 0; g < Cfg::kSplitK; ++g) {
      int first_m = -1, first_n = -1;
      for (int r = 0; r < Cfg::kMcast; ++r) {
        int m0, n0;
        sched.at(t, r, m0, n0);
        if (m0 < 0 || n0 < 0 || m0 % Cfg::BM != 0 || n0 % Cfg::BN != 0) return 2;
        if (r == 0) {
          first_m = m0;
          first_n = n0;
        } else if (n0 != first_n || m0 != first_m + r * Cfg::BM) {
          return 3;
        }
        const int i = m0 / Cfg::BM, j = n0 / Cfg::BN;
        if (i < m_tiles && j < n_tiles) ++seen[static_cast<size_t>(i) * n_tiles + j];
      }
    }
  }
  for (int c : seen)
    if (c != Cfg::kSplitK) return 4;
  int k0[2] = {0, 0}, k1[2] = {k_tiles, k_tiles};
  for (int g = 0; g < 2; ++g) ws_pair_k_range(g, k0[g], k1[g]);
  if (k0[0] != 0 || k1[0] <= k0[0] || k0[1] != k1[0] || k1[1] <= k0[1] || k1[1] != k_tiles)
    return 5;
  return 0;
}

template <int LOOP, class Epi>
int launch_ws_split_k_pair(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_ws_pair_k(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_ws_n64_mid_m<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
