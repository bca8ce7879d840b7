// HGEMM v18 "halves_whole_tiles": v16's 128x256 tile staged and stored half a tile at a time (a
// fourth stage), on v14's schedule: v14's choice of width for the shape and whole tiles only,
// without v15's Stream-K cut that v16 inherits.
//
// Why: S37 measured v16 1-2% faster than v14 at the squares and at 1024x11008x4096, but v16
// also runs v15's cut, which lost wherever it ran but at one shape (256x4096² 0.79x cuBLAS
// against v14's 0.86x). This step keeps the halves' fourth stage and drops the cut, so it runs
// v14's kernels at v14's shapes with one change, and the two can be compared shape for shape.
// The kernel carries no Stream-K code (STREAM_K off): its loop is v14's.
//
// Prediction (before a GPU run): +1-2% over v14 where the 128x256 tile runs (the squares,
// 1024x11008x4096), the same as v14 at the other widths (their kernels are v14's).
// Measured (S38a, kernel timing, cold L2, interleaved with v14 and cuBLAS, two runs): +2.0% at
// 2048³, +3.4% at 4096³ (0.99x cuBLAS), +2.1% at 8192³ (1.01x), +3.4% at 1024x11008x4096, +2.3%
// at 4096x11008x4096 (1.02x); at 256x4096² v14's kernel, the same. S39a (an H100): +1.7% at
// 4096³ (0.98x cuBLAS), +16% at 256x14336x4096 (49.0 against 57.1 us, 0.97x: the 128x256 tile's
// fourth stage where one wave of 112 CTAs streams B from HBM); bf16 +2.4% at 4096³ (0.98x) and
// +2.1% at 2048³ (0.94x). Best from S39.
#pragma once
#include "gemm/hgemm_14_tma_store.cuh"

namespace rlg {

template <int LOOP, class Epi>
int launch_ws_halves_whole_tiles(const half *A, const half *B, half *C, int M, int N, int K,
                                 const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidths<true, false, true>, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
