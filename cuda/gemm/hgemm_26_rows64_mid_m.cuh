// HGEMM v26 "rows64_mid_m": v23, with the 65..512-row shapes where v23 runs its 128 x 64 tile
// on a 64 x 128 tile instead: one consumer warpgroup per tile (v17's pingpong schedule: the two
// warpgroups take a CTA's tiles in turn), v20's lean descriptors, 8 stages of 24 KB (A's 64 rows
// 8 KB, B's 128 columns as two 8 KB boxes), the cluster pair stacked along M sharing B (each CTA
// loads one box and multicasts it into both). Elsewhere v23's paths.
//
// Why: at 256x4096² cuBLAS runs `nvjet_sm90_hsh_128x64_64x8_1x2` (S38a). cuBLAS is column-major:
// our row-major C = A.B is its C^T = B^T.A^T, its M our N, so its 128x64 tile is 64 of our rows
// by 128 of our columns, its 1x2 pair two CTAs along our M sharing B, and without "coop" in its
// name, a pingpong kernel. v23's 128 x 64 tile differs in what the SM's shared memory moves per
// k-tile of 64: both warpgroups' m64n64k16 wgmmas read A 2 KB + B 2 KB each (8 of them: 32 KB)
// and the TMA writes 24 KB, 56 KB at ~128 bytes a clock = ~440 clocks against 256 of tensor
// work, ~28 k clocks over 64 k-tiles (S41a: v20 33.5 k SM cycles, cuBLAS 29.5 k). A 64 x 128
// tile's four m64n128k16 read 24 KB (A 2 KB + B 4 KB each) and the TMA writes 24 KB: 48 KB,
// ~375 clocks a k-tile. The L2 bytes drop too: a CTA reads its A (8 KB) and half of B (8 KB) per
// k-tile, 16 KB against v23's 20 (A 16 KB, half of an 8 KB B box).
//
// The price: one warpgroup issues the tile's wgmmas alone (at 256 rows every CTA has one tile,
// so the other warpgroup idles), one wgmma group in flight while it waits for the one before;
// S37's v17 lost 16-20% at the squares with a 64 x 256 tile this way.
//
// Prediction (before a GPU run): 256x4096² from v23's ~21 us (H100) toward cuBLAS's 19-20,
// 256x4096x11008 the same share; every other shape v23's kernels.
// Measured (S44a, an H100, three processes of v23 / v26 / cuBLAS interleaved; µs): 256x4096² 21.4 /
// 22.6 / 20.4, 21.1 / 22.5 / 18.4, 21.3 / 22.9 / 19.2 (-6..-8%); 256x4096x11008 45.5 / 49.1 / 49.0,
// 45.2 / 49.0 / 49.1 (-8%). Nsight Compute (S44b, 256x4096², caches flushed, clocks free): 38.5 k
// cycles against v23's 36.8 k and cuBLAS's 36.1 k (S40b), L2 72% (v23 59%, cuBLAS 79%), 3.15 M
// instructions (4.06 M, 2.65 M); the consumers wait on the full barriers as in v23. cuBLAS's SASS
// there (S40b's report): one warpgroup per tile as here, two m64n64k16 blocks per k-step (its
// frame: our B as the transposed A), the stage released between the blocks. Same tile, bytes and
// schedule, slower: the shared-memory saving is not what bounds the 64-wide kernel. Correct
// (`gpu_gemm every_hgemm_variant`, the sanitizer's v26 lines). A step, not best.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// v26's tile: 64 x 128 per consumer warpgroup in turn, 8 stages of 24 KB, the pair along M
// sharing B, 8 cluster rows a raster group, v14's store, lean descriptors: 8 x 24 KB + 2 x 16 KB
// of staging + 1 KB = 225 KB.
using WsRows64 = WsCfgLeanDesc<WsCfg<64, 128, 8, 2, 8, true, false, false, true>>;

// The 64 x 128 tile where v23 would run its 64-wide tile below 513 rows; *launched false: it
// did not apply.
template <class Epi, class T>
int try_ws_rows64(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                  cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < 65 || M > 512 || !vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  if (ws_width_for<WsWidthsN64MidM, Epi, T>(M, N) != 64) return 0;
  const WsEstimate e = ws_estimate<WsRows64, Epi, T>(M, N);
  if (e.cost < 0 || e.useful < 0.5) return 0;
  return launch_ws<WsRows64>(A, B, C, M, N, K, epi, stream, launched);
}

template <int LOOP, class Epi>
int launch_ws_rows64_mid_m(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_ws_rows64(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_ws_n64_mid_m<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
