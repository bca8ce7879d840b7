// HGEMM v4 "big_warp_tiles": a 128x256 block tile of 8 warps of 64x64 (0.5 fragment loads per
// MMA instead of v3's 0.75) in a grouped raster (16 block rows walk the columns together, for
// L2 reuse), and where that grid would leave SMs idle a smaller tile that fills them (128x128,
// 64x64, 32x32). These tiles are also the generic path of every later step: any shape off the
// 16-byte path (N or K not a multiple of 8, unaligned bases) runs them.
//
// Measured on the H200 (docs/perf-log.md, HGEMM table, old v4 and v5; R4 / F): 288 / 289
// TFLOP/s at 2048³, 338 / 336 at 4096³, 353 / 354 at 8192³. Predicted ~470: the big miss.
// The SASS was as intended; shared memory must be ~92% busy at the HMMA rate on Hopper, and
// right after each barrier all 8 warps issued their first fragment loads together while the
// tensor cores idled (~1100 instead of ~750 cycles per k-tile). Folded in: a persistent form
// with the epilogue overlapped with the next tile (old v6: 3 stages instead of 4 to make
// room, 10% slower: 254 / 288 / 296 TFLOP/s at 2048³ / 4096³ / 8192³ in F).
#pragma once
#include "gemm/hgemm_03_cp_async.cuh"

namespace rlg {

// 64x64 warp tiles, a raster of 16 block rows.
using CfgWide32 = TileCfg<128, 256, 32, 64, 64, 4, true, 16, 1>;
// The smaller tiles where CfgWide32's grid would leave SMs idle.
using CfgMid = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
using CfgSmall = TileCfg<64, 64, 32, 32, 32, 4, true, 8, 4>;
using CfgTiny = TileCfg<32, 32, 64, 16, 16, 6, true, 8, 2>;

// The largest of the fallback tiles that fills the GPU, else the smallest.
template <class Epi>
int launch_small(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  if (fills_gpu(tile_count<CfgMid>(M, N)))
    return launch_tiled<CfgMid>(A, B, C, M, N, K, epi, stream);
  if (fills_gpu(tile_count<CfgSmall>(M, N)))
    return launch_tiled<CfgSmall>(A, B, C, M, N, K, epi, stream);
  return launch_tiled<CfgTiny>(A, B, C, M, N, K, epi, stream);
}

// The same tiles on the generic path, for a caller that has found the 16-byte path closed.
template <class Epi>
int launch_generic_tiles(const half *A, const half *B, half *C, int M, int N, int K,
                         const Epi &epi, cudaStream_t stream) {
  if (fills_gpu(tile_count<CfgWide32>(M, N)))
    return launch_tiled_path<CfgWide32, false>(A, B, C, M, N, K, epi, stream);
  return launch_small(A, B, C, M, N, K, epi, stream);  // vec16_ok is false: generic path
}

template <class Epi>
int launch_big_warp_tiles(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  if (fills_gpu(tile_count<CfgWide32>(M, N)))
    return launch_tiled<CfgWide32>(A, B, C, M, N, K, epi, stream);
  return launch_small(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
