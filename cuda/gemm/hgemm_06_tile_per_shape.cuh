// HGEMM v6 "tile_per_shape": v5's pipelined loop on a block tile chosen per shape by a cost
// model (the most tiles any SM runs x the tile's area / its measured or estimated rate per
// SM): the 256x128 tile (v5's turned on its side) or v5's 128x256 at large grids, 128x128,
// 64x128, 64x32 and 32x32 tiles where those would leave SMs idle (small M).
//
// Measured on the H200 (docs/perf-log.md, HGEMM): at N = K = 4096, one launch, R3 (µs, against
// v5's loop on its one tile): M = 1 17.0 (80.2), 16 20.4 (80.7), 64 30.2 (81.1), 256 44.1
// (80.5), 1024 90.3 (95.4); cuBLAS 19.8 / 19.7 / 19.2 / 24.1 / 56.6. The 256x128 tile (old v13)
// at 4096³ / 8192³ / 1024x4096x4096, interleaved with the 128x256 (V4): 368 -> 375, 405 -> 414,
// 370 -> 385 TFLOP/s (+1.7%, +2.0%, +4.2%); report I: 346 / 422 / 439 TFLOP/s at 2048³ / 4096³ /
// 8192³, 79% / 62% / 58% of cuBLAS. Folded in: old v8's 128x128 tile of 4 warps (2 per SM) is
// one of the candidates.
#pragma once
#include "gemm/hgemm_05_pipelined.cuh"

namespace rlg {

//   CfgSquare: 128x128, 4 warps of 64x64, 2 blocks (8 warps) per SM, 75,776 B each.
using CfgSquare = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
// The smaller tiles for the pipelined kernel (v5's own tile covers the large grids):
//   W:   64x128x64, 4 warps of 32x64, 4 stages = 106,496 B, 2 blocks per SM (M ~ 129..512).
//   T64: 64x32x128, 4 warps of 32x16, 4 stages = 110,592 B, 2 blocks per SM (M ~ 33..128).
//   T32: 32x32x128, 4 warps of 16x16, 6 stages = 113,664 B, 2 blocks per SM (M <= 32).
// T32/T64 are for the B stream of small M: 32 columns give N/32 blocks, and BK=128 keeps
// (S-1) x 8 KB of B in flight per block with one barrier per 128 of K.
using CfgW = TileCfg<64, 128, 64, 32, 64, 4, true, 8, 2>;
using CfgT64 = TileCfg<64, 32, 128, 32, 16, 4, true, 8, 2>;
using CfgT32 = TileCfg<32, 32, 128, 16, 16, 6, true, 8, 2>;
// The tall tile: v5's with the block turned on its side (256x128x64, warp grid 4 x 2, the
// same 64x64 warp tiles and 4 stages), 217,088 B: measured 2.5-3.4% faster than v5's 128x256
// at 4096^3 and 8192^3 on the H200 (docs/perf-log.md, P12).
using CfgTall = TileCfg<256, 128, 64, 64, 64, 4, true, 16, 1>;

// Relative time of a pipelined config on an M x N output: the most tiles any SM runs (ceil(tiles /
// SMs); the 2-blocks-per-SM configs run theirs concurrently at the SM's rate) times the tile's area
// over the config's throughput per SM in % of CfgWide's (CfgWide 100, CfgSquare 80, W 65, T64 50,
// T32 40: CfgSquare's measured, the rest estimated from smem traffic per HMMA). K cancels out.
// Small M is memory-bound, which this ignores; it still picks the thin tiles there because they are
// the only ones with enough blocks.
template <class Cfg>
long long tile_cost(int M, int N, int eff_pct) {
  const long long per_sm = rl_ceil_div(tile_count<Cfg>(M, N), rl_sm_count());
  return per_sm * (Cfg::BM * Cfg::BN * 100LL) / eff_pct;
}

enum class TileChoice { kWide, kTall, kSquare, kW, kT64, kT32 };

// The cheapest config, ties to the larger tile (checked in this order). The 256x128 tile
// counts at its measured 103% of the 128x256 tile's rate per SM (P12), where its 217,088 B
// of shared memory fit.
inline TileChoice choose_tile(int M, int N) {
  TileChoice best = TileChoice::kWide;
  long long cost = tile_cost<CfgWide>(M, N, 100);
  const auto consider = [&](TileChoice c, long long v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  if (smem_optin_bytes() >= CfgTall::kSmemBytes)
    consider(TileChoice::kTall, tile_cost<CfgTall>(M, N, 103));
  consider(TileChoice::kSquare, tile_cost<CfgSquare>(M, N, 80));
  consider(TileChoice::kW, tile_cost<CfgW>(M, N, 65));
  consider(TileChoice::kT64, tile_cost<CfgT64>(M, N, 50));
  consider(TileChoice::kT32, tile_cost<CfgT32>(M, N, 40));
  return best;
}

// The pipelined kernel on the tile choose_tile picks, on the 16-byte path; anything else runs
// v4's choice of the generic tiled kernels.
template <class Epi>
int launch_tile_per_shape(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  if (!vec16_ok(A, B, C, N, K, epi)) return launch_generic_tiles(A, B, C, M, N, K, epi, stream);
  switch (choose_tile(M, N)) {
    case TileChoice::kTall: return launch_pipelined_path<CfgTall>(A, B, C, M, N, K, epi, stream);
    case TileChoice::kWide: return launch_wide_pipelined(A, B, C, M, N, K, epi, stream);
    case TileChoice::kSquare:
      return launch_pipelined_path<CfgSquare>(A, B, C, M, N, K, epi, stream);
    case TileChoice::kW: return launch_pipelined_path<CfgW>(A, B, C, M, N, K, epi, stream);
    case TileChoice::kT64: return launch_pipelined_path<CfgT64>(A, B, C, M, N, K, epi, stream);
    default: return launch_pipelined_path<CfgT32>(A, B, C, M, N, K, epi, stream);
  }
}

}  // namespace rlg
