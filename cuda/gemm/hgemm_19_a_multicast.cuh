// HGEMM v19 "a_multicast": v18, with the 65..512-row shapes that no width of v18 suits on the
// warp-specialized kernel at 128x64 (8 stages of 24 KB, v14's TMA store), its cluster pair
// along N: the two CTAs take neighbouring column tiles of the same 128 rows, each loading one
// 64-row half of A's box for both by TMA multicast and its own B box.
//
// Why: at 256x4096² and 256x4096x11008 (0.83x cuBLAS, S37c) no width of v13..v18 keeps half of
// the tensor cores' time on C (the 128-wide tiles' pairs along M make 32 cluster tiles for 66
// clusters), so v9's 128x64 tile runs: one tile per CTA, not persistent, its results stored
// by the consumers after the last k-tile, each CTA reading its whole A box (16 KB) and B box
// (8 KB) from L2 per k-tile. cuBLAS runs a 128x64 tile with 8 stages and a cluster of 1x2
// there (ncu, S38a: nvjet_sm90_hsh_128x64_64x8_1x2_h_bz_NNT). A pair along M would share B,
// 8 KB of 24; along N it shares A, 16 KB of 24: each CTA reads 16 KB per k-tile, 2/3 of v9's.
// At 256x4096² the 128 CTAs (64 pairs) read 2 MB per k-tile step instead of 3 MB; L2's
// delivery, not the tensor cores (a 128x64 tile's k-tile is ~0.27 us of wgmma at 1980 MHz),
// sets the pace there.
//
// Where it runs: 65..512 rows (v9's), the 16-byte path, sm_90a, where v18 found no width and
// the 128x64 pairs' grid keeps at least half of the waves' tensor-core time on C (the cost
// model's `useful`, hgemm_13_ws_tile_per_shape.cuh); elsewhere v18's paths. At the LLM shapes:
// 256x4096x4096 and 256x4096x11008 (one wave of 64 pairs); 256x11008 and 256x14336 keep v18's
// 128x192 and 128x256 tiles.
//
// Prediction (before a GPU run): L2's delivery at v9's rate (~8.7 TB/s: 192 MB in 22 us) over
// 128 MB instead of 192, plus ~2 us of fill and store: 256x4096² 17-19 us (0.93-1.04x cuBLAS's
// 17.7) from ~22, 256x4096x11008 ~15% faster than v9; unchanged elsewhere.
// Measured (S39a, an H100 (the H200 was not lent), kernel timing, cold L2, interleaved with v9 /
// v18 and cuBLAS): slower, not faster: 256x4096² 25.2 us against v9's 22.5 (cuBLAS 21.2),
// 256x4096x11008 61.4 against 47.7 (cuBLAS 49.1). Correct at every check and sanitizer run. The
// loss grows with K (12% at 64 k-tiles, 29% at 172), so it is paid per k-tile: the pair's ring
// is one ring (a stage refills only when both CTAs released it), so either CTA's stall stops
// both, and each k-tile waits for the slower of two multicasts. Not best; v9's tile stays.
#pragma once
#include <vector>

#include "gemm/hgemm_18_halves_whole_tiles.cuh"

namespace rlg {

// v19's tile: 128 x 64, 8 stages of 24 KB, a cluster pair along N (WsCfgN), 8 tile rows a
// raster group: 8 x 24 KB + 16 KB of staging + 1 KB = 209 KB.
using WsMidM = WsCfgN<64, 8, 8>;

// The pairs' kernel where it suits the shape; *launched false: it did not apply.
// Cfg: v19's WsMidM, or v20's lean-descriptor twin of it.
template <class Cfg = WsMidM, class Epi, class T>
int try_ws_a_multicast(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                       cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < 65 || M > 512 || N >= (1 << 30)) return 0;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  const WsEstimate e = ws_estimate<Cfg, Epi, T>(M, N);
  if (e.cost < 0 || e.useful < 0.5) return 0;
  return launch_ws<Cfg>(A, B, C, M, N, K, epi, stream, launched);
}

template <int LOOP, class Epi, class Cfg = WsMidM>
int launch_ws_a_multicast(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  const auto rest = [&] {
    return path_or(
        [&](bool *done) {
          return try_ws_a_multicast<Cfg>(A, B, C, M, N, K, epi, stream, done);
        },
        [&] { return launch_warp_specialized<LOOP>(A, B, C, M, N, K, epi, stream); });
  };
  return path_or(
      [&](bool *done) {
        return try_ws_widths<WsWidths<true, false, true>>(A, B, C, M, N, K, epi, stream, done);
      },
      rest);
}

// The kernel's tile order (WsSchedule) walked on the host for an M x N output: every tile of C
// taken by exactly one CTA of one cluster tile, the CTAs past C only where the cluster tile
// overhangs it, and each pair sharing its operand (along N: the same rows, neighbouring
// columns; along M: the same columns, neighbouring rows). 0: all hold; 1: bad arguments; 2-5:
// which failed.
template <class Cfg>
int ws_schedule_check(int M, int N) {
  if (M <= 0 || N <= 0 || M > (1 << 20) || N > (1 << 20)) return 1;
  const WsSchedule<Cfg> sched(M, N);
  const int m_tiles = (M + Cfg::BM - 1) / Cfg::BM, n_tiles = (N + Cfg::BN - 1) / Cfg::BN;
  std::vector<int> seen(static_cast<size_t>(m_tiles) * n_tiles, 0);
  for (int t = 0; t < sched.total; ++t) {
    int m0[2], n0[2];
    for (int r = 0; r < Cfg::kCluster; ++r) {
      sched.at(t, r, m0[r], n0[r]);
      if (m0[r] < 0 || n0[r] < 0 || m0[r] % Cfg::BM != 0 || n0[r] % Cfg::BN != 0) return 2;
      const int i = m0[r] / Cfg::BM, j = n0[r] / Cfg::BN;
      // Past C only inside the last cluster tile of a row or column of them.
      if (i >= m_tiles + Cfg::kCluster - 1 || j >= n_tiles + Cfg::kCluster - 1) return 3;
      if (i < m_tiles && j < n_tiles) ++seen[static_cast<size_t>(i) * n_tiles + j];
    }
    if (Cfg::kCluster == 2) {
      const bool along_n = m0[0] == m0[1] && n0[1] == n0[0] + Cfg::BN;
      const bool along_m = n0[0] == n0[1] && m0[1] == m0[0] + Cfg::BM;
      if (Cfg::kClusterN ? !along_n : !along_m) return 4;
    }
  }
  for (int c : seen)
    if (c != 1) return 5;
  return 0;
}

}  // namespace rlg
