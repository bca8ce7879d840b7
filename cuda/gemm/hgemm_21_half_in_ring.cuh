// HGEMM v21 "half_in_ring": v18, the 128x256 tile's second half staged in the ring stage its
// last k-tile emptied instead of behind the first half's store. That stage is held from the
// producers (its release delayed) until the TMA store has read it, which the warpgroup checks
// after issuing the next tile's first k-tile; a 256-thread barrier first makes sure both
// consumer warpgroups' last wgmmas are done with it. The other widths are v18's.
//
// Why: Nsight Compute at 4096³ (S41a, an H100; the perf log's "Target status in S40a") put
// v18 at 290.9 k cycles against cuBLAS's 285.5 k, ~1.4 k cycles a tile more off the tensor
// pipe. The one stall v18 has there that cuBLAS's cooperative kernel need not: between its two
// halves each warpgroup waits for the TMA unit to finish reading the first (the staging is 16
// KB a warpgroup, for the fourth stage), ~1% of all stall samples, the 8 consumer warps
// together, i.e. ~1.1 k cycles a tile.
//
// Prediction (before a GPU run): +1-1.5% at 4096³ and 8192³ (toward 1.00x cuBLAS on the
// H100), +1.5-2% at 2048³ (more tiles per SM's time), the same at the other widths. Risk: the
// held stage's refill comes ~1 k cycles later; the consumer needs it three k-tiles (~3 k
// cycles) into the next tile, so it should land in time.
// Measured: not yet.
#pragma once
#include "gemm/hgemm_18_halves_whole_tiles.cuh"

namespace rlg {

// v18's widths with the 128x256 tile's second half in the ring.
struct WsWidthsHalfInRing : WsWidths<true, false, true> {
  using N256 = WsCfgHalfInRing<WsWidths<true, false, true>::N256>;
};

template <int LOOP, class Epi>
int launch_ws_half_in_ring(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsHalfInRing, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
