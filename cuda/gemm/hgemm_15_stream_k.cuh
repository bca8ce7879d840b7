// HGEMM v15 "stream_k": v14, with the tiles of a partial last wave cut along K over every
// cluster (Stream-K: ws_stream_k.cuh), where that is cheaper than the idle SMs it replaces.
//
// Why: v14 runs whole tiles, a wave of W = 66 cluster tiles at a time, so a shape whose tiles
// are not a multiple of W leaves SMs idle in its last wave: 256x4096² has 32 cluster tiles of
// 128x128 (half of the GPU idle: v14 leaves it to v9's tile, 0.82x cuBLAS), 1024x11008x4096
// 172 of 128x256 (2.6 waves run as 3), 4096³ 256 (3.88 as 4). Stream-K gives every cluster the
// same number of k-tile iterations: the first sk_tiles tiles (the partial wave and one full
// wave, so that a tile is cut into at most a few units; all of them when there is less than a
// wave) are shared, the rest run whole. The price is the fixup: a unit that did not start its
// tile writes its 64 x BN fp32 sums per warpgroup to global memory (L2) and the tile's owner
// reads them before the functor.
//
// The choice, per width of v13 (its speeds, 64 wide only above 512 rows): whole tiles cost
// waves x BN / speed (v13); cut, (tiles / W + fixup) x BN / speed, the fixup on a cluster's
// critical path being its one contribution and the W / sk_tiles slots its owner reads, each
// ~228 / K of a tile's time (a CTA's 128 x BN x 4 bytes at ~50 GB/s of L2 per SM, against
// its 128 x BN x K x 2 FLOPs at 5.7 TFLOP/s; an estimate, to calibrate on the H200). Cut tiles
// win only at 0.97x of the whole tiles' cost (where they are allowed), so shapes that waste
// less than ~3% in their last wave keep v14's kernel (4096³, 8192³). Each cluster needs two
// iterations or more. ROOFLINE_WS_STREAM_K=0 never cuts, =1 cuts wherever it can (for that
// calibration), beside v13's ROOFLINE_WS_TILE_N.
//
// Prediction (before a GPU run): 256x4096² 128x128 cut over all 66 clusters, ~17 us (v9's
// tile, where v12-v14 send it: 22.4, cuBLAS 18.3, S34f); 256x4096x11008 the same tiles, ~43 us
// (v9's tile 48.7 in S34c, cuBLAS 39.5); 1024x11008x4096 128x256 cut, +8-12% over v14 (0.95x
// cuBLAS in S35a -> ~1.03x); the squares unchanged (v14's kernel).
// Measured (S37, kernel timing, cold L2, interleaved with v14 and cuBLAS): the cut loses where it
// runs but at 4096x11008x4096 (+1.6%): 256x4096² 0.79x cuBLAS (v14 0.86x), 256x11008x4096 0.86x
// forced on against 0.97x off, 1024x11008x4096 -1.5%. The fixup model is far too cheap (perf log).
#pragma once
#include "gemm/hgemm_14_tma_store.cuh"

namespace rlg {

// ROOFLINE_WS_STREAM_K: -1 (unset: the cost model), 0 (never cut) or 1 (cut where possible).
inline int ws_sk_forced() {
  static const int v = [] {
    const char *s = std::getenv("ROOFLINE_WS_STREAM_K");
    return s == nullptr ? -1 : s[0] == '0' ? 0 : s[0] == '1' ? 1 : -1;
  }();
  return v;
}

// The fixup's cost in units of a tile's main loop, per slot written or read: ~228 / K.
constexpr double kWsSkFixupK = 228.0;
// Cut tiles run only where they cost at most this fraction of whole ones.
constexpr double kWsSkMargin = 0.97;

// One width's plan for a shape: v13's estimate of its whole tiles, and of its cut ones
// (sk_tiles > 0: possible).
struct WsSkEstimate {
  WsEstimate whole;
  double cut_cost = -1.0, cut_useful = 0.0;
  int sk_tiles = 0;
};
template <class Cfg, class Epi, class T>
WsSkEstimate ws_sk_estimate(int M, int N, int K) {
  WsSkEstimate e;
  e.whole = ws_estimate<Cfg, Epi, T>(M, N);
  const int clusters = ws_resident_clusters<Cfg, Epi, T>();
  if (e.whole.cost < 0 || clusters <= 0) return e;
  const long long ctiles = rl_ceil_div(rl_ceil_div(M, Cfg::BM), Cfg::kCluster) *
                           rl_ceil_div(N, Cfg::BN);
  const long long k_tiles = rl_ceil_div(K, Cfg::BK);
  if (ctiles % clusters == 0) return e;  // whole waves: nothing to gain
  const long long sk_tiles = ctiles < clusters ? ctiles : ctiles % clusters + clusters;
  if (sk_tiles * k_tiles < 2LL * clusters) return e;  // every cluster two iterations or more
  const double fixup = (1.0 + static_cast<double>(clusters) / sk_tiles) * kWsSkFixupK / K;
  e.sk_tiles = static_cast<int>(sk_tiles);
  e.cut_cost = (static_cast<double>(ctiles) / clusters + fixup) * Cfg::BN * 100.0 /
               ws_width_speed(Cfg::BN);
  e.cut_useful = static_cast<double>(M) * N /
                 (static_cast<double>(ctiles) * Cfg::kCluster * Cfg::BM * Cfg::BN);
  return e;
}

// What v15 runs at a shape: a width (0: none of this kernel's) and how many of its first
// cluster tiles are cut (0: all whole).
struct WsSkChoice {
  int width = 0;
  int sk_tiles = 0;
};
template <class W, class Epi, class T>
WsSkChoice ws_sk_choose(int M, int N, int K) {
  WsSkChoice whole, cut;
  if (M < 65 || M >= (1 << 30) || N >= (1 << 30)) return whole;
  const WsSkEstimate est[4] = {ws_sk_estimate<typename W::N256, Epi, T>(M, N, K),
                               ws_sk_estimate<typename W::N192, Epi, T>(M, N, K),
                               ws_sk_estimate<typename W::N128, Epi, T>(M, N, K),
                               ws_sk_estimate<typename W::N64, Epi, T>(M, N, K)};
  constexpr int widths[4] = {256, 192, 128, 64};
  const int forced_w = ws_forced_width(), forced_cut = ws_sk_forced();
  double whole_cost = 0.0, cut_cost = 0.0;
  for (int i = 0; i < 4; ++i) {
    if (forced_w != 0 ? widths[i] != forced_w : widths[i] == 64 && M <= 512) continue;
    const WsSkEstimate &e = est[i];
    // the cheapest of each kind, ties to the wider
    if (e.whole.cost >= 0 && (forced_w != 0 || e.whole.useful >= 0.5) &&
        (whole.width == 0 || e.whole.cost < whole_cost)) {
      whole = WsSkChoice{widths[i], 0};
      whole_cost = e.whole.cost;
    }
    if (e.sk_tiles > 0 && forced_cut != 0 && (forced_w != 0 || e.cut_useful >= 0.5) &&
        (cut.width == 0 || e.cut_cost < cut_cost)) {
      cut = WsSkChoice{widths[i], e.sk_tiles};
      cut_cost = e.cut_cost;
    }
  }
  // Cut tiles where forced, where whole ones do not suit the shape, or where they save 3%
  // against the best whole tiles of any width (v14's choice stands otherwise).
  if (cut.width != 0 &&
      (forced_cut == 1 || whole.width == 0 || cut_cost <= kWsSkMargin * whole_cost))
    return cut;
  return whole;
}

// The kernel at one width, its first sk_tiles cluster tiles cut (the workspace had; 0: all
// whole); *launched false when the cut tiles cannot have their workspace (a stream being
// captured): v14's paths then.
template <class Cfg, class Epi, class T>
int launch_ws_cut(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                  int sk_tiles, cudaStream_t stream, bool *launched) {
  *launched = false;
  WsSkArgs sk;
  if (sk_tiles > 0) {
    const int clusters = ws_resident_clusters<Cfg, Epi, T>();
    if (!ws_sk_workspace(stream, clusters * Cfg::kCluster * 2, &sk)) return 0;
    sk.sk_tiles = sk_tiles;
    sk.sk_iters = static_cast<long long>(sk_tiles) * rl_ceil_div(K, Cfg::BK);
  }
  return launch_ws<Cfg>(A, B, C, M, N, K, epi, stream, launched, sk);
}

// v15's choice where it has one (T: half, or bf16); *launched false: none.
template <class W, class Epi, class T>
int try_ws_stream_k(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                    cudaStream_t stream, bool *launched) {
  *launched = false;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  const WsSkChoice ch = ws_sk_choose<W, Epi, T>(M, N, K);
  switch (ch.width) {
    case 256:
      return launch_ws_cut<typename W::N256>(A, B, C, M, N, K, epi, ch.sk_tiles, stream, launched);
    case 192:
      return launch_ws_cut<typename W::N192>(A, B, C, M, N, K, epi, ch.sk_tiles, stream, launched);
    case 128:
      return launch_ws_cut<typename W::N128>(A, B, C, M, N, K, epi, ch.sk_tiles, stream, launched);
    case 64:
      return launch_ws_cut<typename W::N64>(A, B, C, M, N, K, epi, ch.sk_tiles, stream, launched);
    default:
      return 0;
  }
}

// LOOP: the lean loop's form on v14's paths (kLoopLean plain, kLoopLeanOpaqueLast fused).
template <int LOOP, class Epi>
int launch_ws_stream_k(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) {
        return try_ws_stream_k<WsWidths<true, true>>(A, B, C, M, N, K, epi, stream, done);
      },
      [&] { return launch_ws_tma_store<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
