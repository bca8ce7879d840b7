// HGEMM v13 "ws_tile_per_shape": v12's warp-specialized wgmma kernel with its tile width chosen
// per shape (64, 128, 192 or 256 columns of 128 rows) by the waves each width needs, and run
// wherever the chosen width keeps at least half of the tensor cores' time on C (not only where
// 128x256 tiles fill a wave), as v6 chose a WMMA tile per shape for v5's loop.
//
// Why: v12 runs only where its 128x256 tiles fill 7/8 of the SMs; at the LLM projections with
// 256 rows that leaves v9's 128x64 wgmma tile (256x4096², 0.82x cuBLAS) or v6's WMMA tile
// (256x11008x4096: 0.49x, 256x14336x4096: 0.57x; report S34c). cuBLAS runs the same kind of
// kernel there with the width per shape (Nsight Compute, S34e): 128x64 tiles with 8 stages at
// 256x4096² (128 CTAs), 128x192 at 256x11008 (116 tiles on 120 CTAs), 128x256 in a wave of 112
// tiles at 256x14336.
//
// The widths (WsCfg of v12, all 128 rows, a cluster of 2 along M sharing B):
//   256: 4 stages of 48 KB (v12's tile);   192: 4 stages of 40 KB (three B boxes: the cluster's
//   CTAs load two and one); 128: 6 stages of 32 KB;   64: 8 stages of 24 KB (CTA 0 loads the
//   one B box for both). Each fills the same ~225 KB of shared memory, a narrower tile with
//   more stages in flight, as its k-tiles are shorter.
// The choice: for each width, the waves of cluster tiles over the resident clusters, times the
// width over its relative speed (the time of one wave of tiles of that width, K aside); the
// cheapest wins, ties to the wider. The speeds below are estimates from shared-memory and L2
// traffic per FMA (a 128 x N tile reads 128 + N operand columns per k for 128 N FMAs: relative
// to N = 256, 1.11x the bytes at 192, 1.33x at 128, 2x at 64, where n64's wgmmas also meet the
// shared-memory read rate); the perf log has the calibration run. ROOFLINE_WS_TILE_N=64|128|192|
// 256 forces a width (for that calibration; the shape must still suit the kernel).
//
// Where it runs: M >= 65, the 16-byte path, sm_90a, and the chosen width's useful fraction
// (M x N over the tiles' area times the waves' slots) at least 1/2, 64-wide tiles only above
// 512 rows (measured: below, v9's tile is faster); elsewhere v12 (and so v11's paths).
//
// Prediction (before a GPU run): 256x4096² 128x64 tiles, ~19 us (0.95x cuBLAS; v12 22.2);
// 256x11008x4096 128x192, ~40 us (v12 76.5); 256x14336x4096 128x256 in one wave of 112 tiles,
// ~48 us (v12 82.8); 256x4096x11008 128x64, ~41 us (v12 48.7); 1024³ 128x64 (128 tiles), ~9 us
// (v12 14.6); the squares from 2048 unchanged (128x256 wins there).
// Measured (S34f, kernel timing, cold L2, interleaved with v12 and cuBLAS; x cuBLAS, v12 -> v13):
// 256x11008x4096 0.50 -> 0.95 (128x192), 256x14336x4096 0.57 -> 0.95 (128x256, 112 tiles),
// 1024x14336x4096 0.92 -> 0.95 (128x128), 1024³ 0.58 -> 0.82 (128x64), 4096³ 0.96 both; with
// 64-wide tiles at 256 rows (since excluded) 256x4096² 0.82 -> 0.79, 256x4096x11008 0.83 -> 0.78.
#pragma once
#include <cstdlib>
#include <type_traits>

#include "gemm/hgemm_12_warp_specialized.cuh"

namespace rlg {

// The four widths, with v12's store (v13) or v14's (TMA_STORE: its staging takes 16-64 KB, so
// the 256-wide tile keeps 3 stages), v15's stream-K schedule (STREAM_K), and v16's staging in
// halves for the 256-wide tile (HALVES: 32 KB, 4 stages again). Every one fills at most ~225 KB
// of shared memory.
template <bool TMA_STORE, bool STREAM_K = false, bool HALVES = false>
struct WsWidths {
  using N256 = WsCfg<128, 256, TMA_STORE && !HALVES ? 3 : 4, 2, 8, TMA_STORE, STREAM_K, HALVES>;
  using N192 = WsCfg<128, 192, 4, 2, 8, TMA_STORE, STREAM_K>;
  using N128 = WsCfg<128, 128, 6, 2, 8, TMA_STORE, STREAM_K>;
  using N64 = WsCfg<128, 64, 8, 2, 8, TMA_STORE, STREAM_K>;
  // HGEMM v23 (WsWidthsN64MidM): the 64-wide tile also at 65..512 rows, where v9's tile runs
  // otherwise.
  static constexpr bool kN64MidM = false;
};
static_assert(std::is_same_v<WsWidths<false>::N256, WsTile>, "v13's widest tile is v12's");

// Relative speed of one tile width's main loop (N = 256: 1), in percent.
constexpr int ws_width_speed(int bn) {
  return bn == 256 ? 100 : bn == 192 ? 97 : bn == 128 ? 92 : 75;
}

// One width's cost for a shape: waves x width / speed (in units where K cancels), and the
// fraction of the waves' tensor-core time that lands in C; cost < 0 when it cannot run.
struct WsEstimate {
  double cost = -1.0, useful = 0.0;
};
template <class Cfg, class Epi, class T>
WsEstimate ws_estimate(int M, int N) {
  WsEstimate e;
  const int clusters = ws_resident_clusters<Cfg, Epi, T>();
  // Cluster tiles: the pair stacked along M, or (v19's WsCfgN) side by side along N.
  constexpr int kAlongM = Cfg::kClusterN ? 1 : Cfg::kCluster, kAlongN = Cfg::kCluster / kAlongM;
  const long long m_ctiles = rl_ceil_div(rl_ceil_div(M, Cfg::BM), kAlongM);
  const long long ctiles = m_ctiles * rl_ceil_div(rl_ceil_div(N, Cfg::BN), kAlongN);
  if (clusters <= 0 || ctiles > INT_MAX) return e;
  const long long waves = rl_ceil_div(ctiles, clusters);
  // A cluster tile's area against v12's 256 x BN (1 for every cooperative width; v17's
  // pingpong tiles of 64 rows: 1/2).
  constexpr double kArea = Cfg::BM * Cfg::kCluster / 256.0;
  e.cost = static_cast<double>(waves) * kArea * Cfg::BN * 100.0 / ws_width_speed(Cfg::BN);
  e.useful = static_cast<double>(M) * N /
             (static_cast<double>(waves) * clusters * Cfg::kCluster * Cfg::BM * Cfg::BN);
  return e;
}

// The width ROOFLINE_WS_TILE_N forces (read once), or 0.
inline int ws_forced_width() {
  static const int w = [] {
    const char *s = std::getenv("ROOFLINE_WS_TILE_N");
    const int v = s != nullptr ? std::atoi(s) : 0;
    return v == 64 || v == 128 || v == 192 || v == 256 ? v : 0;
  }();
  return w;
}

// The width for a shape among W's (0: none suits it); T: the element type (half or bf16).
// cost: where given, the chosen width's estimate (v17 weighs its pingpong tile against it).
template <class W, class Epi, class T>
int ws_width_for(int M, int N, double *cost = nullptr) {
  if (M < 65 || M >= (1 << 30) || N >= (1 << 30)) return 0;
  const WsEstimate est[4] = {
      ws_estimate<typename W::N256, Epi, T>(M, N), ws_estimate<typename W::N192, Epi, T>(M, N),
      ws_estimate<typename W::N128, Epi, T>(M, N), ws_estimate<typename W::N64, Epi, T>(M, N)};
  constexpr int widths[4] = {256, 192, 128, 64};
  const int forced = ws_forced_width();
  int best = -1;
  for (int i = 0; i < 4; ++i) {
    if (est[i].cost < 0) continue;
    // 64-wide tiles only above 512 rows: at 256 rows v9's 128x64 tile over all of K (v12's
    // path there) measured 1.04-1.06x faster than this kernel's (S34f: 256x4096x4096 22.4 vs
    // 23.3 us, 256x4096x11008); above 512 rows the alternative is WMMA (1024³: 0.58x cuBLAS
    // against 0.82x here).
    // v23 lifts it (W::kN64MidM): its lean descriptors made the 64-wide kernel the faster one.
    if (widths[i] == 64 && M <= 512 && forced == 0 && !W::kN64MidM) continue;
    if (forced != 0) {
      if (widths[i] == forced) best = i;
      continue;
    }
    if (best < 0 || est[i].cost < est[best].cost) best = i;  // ties keep the wider
  }
  if (best < 0 || (forced == 0 && est[best].useful < 0.5)) return 0;
  if (cost != nullptr) *cost = est[best].cost;
  return widths[best];
}

// The kernel at the width the shape asks for among W's (T: half, or bf16 from
// gemm/bf16_paths.cuh); *launched false: none suits it.
template <class W, class Epi, class T>
int try_ws_widths(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                  cudaStream_t stream, bool *launched) {
  *launched = false;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  switch (ws_width_for<W, Epi, T>(M, N)) {
    case 256:
      return launch_ws<typename W::N256>(A, B, C, M, N, K, epi, stream, launched);
    case 192:
      return launch_ws<typename W::N192>(A, B, C, M, N, K, epi, stream, launched);
    case 128:
      return launch_ws<typename W::N128>(A, B, C, M, N, K, epi, stream, launched);
    case 64:
      return launch_ws<typename W::N64>(A, B, C, M, N, K, epi, stream, launched);
    default:
      return 0;
  }
}

// W's widths where one suits the shape, else v12's paths (LOOP: the lean loop's form there,
// as launch_warp_specialized).
template <class W, int LOOP, class Epi>
int launch_ws_widths(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                     cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_ws_widths<W>(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_warp_specialized<LOOP>(A, B, C, M, N, K, epi, stream); });
}

template <int LOOP, class Epi>
int launch_ws_tile_per_shape(const half *A, const half *B, half *C, int M, int N, int K,
                             const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidths<false>, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
