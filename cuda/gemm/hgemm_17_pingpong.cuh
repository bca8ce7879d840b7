// HGEMM v17 "pingpong": v16, with the whole-tile shapes on a "pingpong" schedule (CUTLASS's
// name): each consumer warpgroup computes a whole 64 x 256 tile of its own, the two taking the
// cluster's tiles in turn. The producer loads the tiles' k-tiles in that order, so one
// warpgroup's main loop runs while the other applies the functor and stores its tile: the
// tensor cores no longer wait for the epilogue. A hand-off barrier between the warpgroups keeps
// their main loops in that order and their parity waits unambiguous (ws_pingpong.cuh, whose
// host model of the ring the CPU tests run).
//
// Why: in v14's cooperative tile both consumer warpgroups reach the epilogue at once and the
// tensor cores idle through it. That costs the plain GEMM little since the store went through
// TMA (v14), but the tanh GELU's functor is SFU-bound (~1.5-1.8 us a 128x256 tile against ~47
// us of main loop at 4096³: fused / plain 1.04 at 4096³, 1.09 at 2048³, S35a), and the
// residual's reads of R wait on memory. Here the same work runs under the other warpgroup's
// wgmmas, which leave the SFU and the load units free.
//
// The price: one warpgroup alone must keep the tensor cores busy (four m64n256k16 per k-tile,
// one wgmma group in flight, as CUTLASS's pingpong kernel), and a stage is read by 4 warps,
// not 8. A stage is A 8 KB + B 32 KB (4 stages; B shared over the cluster pair as in v12): a
// CTA reads 24 KB from L2 per k-tile for 2.1 MFLOP, 1.5x v14's bytes per FLOP (A 16 KB + half
// of B 16 KB for 4.2 MFLOP): ~8.8 TB/s of L2 reads at 750 TFLOP/s (v14: 5.9), ~56% of the
// 15.7 TB/s the ceilings measure. Each warpgroup stages its own tile (32 KB) for the TMA store.
// (A 128 x 128 tile per warpgroup reads the same bytes, but its m64n128 wgmmas run ~8% slower
// by v13's widths, and its waves are no finer: the model never picks it.)
//
// Where it runs: the whole-tile shapes v16 does not cut along K, where the pingpong tile's
// waves cost no more than v14's widths' (ws_estimate: the main-loop speed of a 256-wide tile;
// its cluster tiles are half as tall as v14's, so its waves are finer); ties go to it, as the
// epilogue the model leaves out is what it hides. ROOFLINE_WS_PINGPONG=0 never runs it, =1
// wherever it suits the shape (for the calibration).
//
// Prediction (before a GPU run): the plain GEMM as v14 within +-2% at 2048-8192³ (its
// exposed store was ~0.3-0.5 us a tile; against that, 4 warps per stage and one warpgroup's
// issue); GEMM+bias+GELU v10 / plain <= 1.02 at 4096³ and 8192³ (from 1.04), ~1.05 at 2048³
// (one tile per warpgroup there: the second warpgroup's epilogue has no main loop to hide
// under); the residual's the same.
// Measured (S37, interleaved with v14 and cuBLAS): 16-20% slower than v14 at 2048-8192³
// (0.79-0.85x cuBLAS): one warpgroup's main loop at a time does not keep the tensor cores fed,
// or the 64-row tile's L2 bytes show (perf log: what tells them apart). Its fused form's
// overlap works.
#pragma once
#include "gemm/hgemm_16_staged_halves.cuh"

namespace rlg {

// v17's tile: 64 x 256 per consumer warpgroup, 4 stages of 40 KB, a cluster of 2 along M
// sharing B, 8 cluster rows per raster group, v14's store, pingpong (4 x 40 + 2 x 32 + 1 KB).
using WsPingpongTile = WsCfg<64, 256, 4, 2, 8, true, false, false, true>;

// ROOFLINE_WS_PINGPONG: -1 (unset: the cost model), 0 (never) or 1 (wherever a tile suits).
inline int ws_pp_forced() {
  static const int v = [] {
    const char *s = std::getenv("ROOFLINE_WS_PINGPONG");
    return s == nullptr ? -1 : s[0] == '0' ? 0 : s[0] == '1' ? 1 : -1;
  }();
  return v;
}

// Whether v17 runs the pingpong tile at a shape (else v16's paths).
template <class Epi, class T>
bool ws_pp_suits(int M, int N, int K) {
  const int forced = ws_pp_forced();
  if (forced == 0 || M < 65 || M >= (1 << 30) || N >= (1 << 30)) return false;
  const WsEstimate pp = ws_estimate<WsPingpongTile, Epi, T>(M, N);
  if (pp.cost < 0 || pp.useful < 0.5) return false;
  if (forced == 1) return true;
  // v16's choice where the pingpong tile is not at least as cheap: its cut tiles, or a
  // cooperative width whose waves cost less (none of v14's widths: its other paths).
  if (ws_sk_choose<WsWidths<true, true, true>, Epi, T>(M, N, K).sk_tiles > 0) return false;
  double coop_cost = 0.0;
  if (ws_width_for<WsWidths<true>, Epi, T>(M, N, &coop_cost) == 0) return false;
  return pp.cost <= coop_cost;
}

// The pingpong kernel where it suits the shape (T: half, or bf16); *launched false: it did not.
template <class Epi, class T>
int try_ws_pingpong(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                    cudaStream_t stream, bool *launched) {
  *launched = false;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  if (!ws_pp_suits<Epi, T>(M, N, K)) return 0;
  return launch_ws<WsPingpongTile>(A, B, C, M, N, K, epi, stream, launched);
}

template <int LOOP, class Epi>
int launch_ws_pingpong(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_ws_pingpong(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_ws_staged_halves<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
