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
// Measured (S42a, an H100, two interleaved runs, medians of cold kernel time), its k-loop not
// unrolled then (the release check kept the compiler from it): against v18 +0.3/+0.5% at
// 4096³, +0.0/+0.1% at 8192³, -0.7/+0.9% at 2048³ (noise), +0.8-1.4% at 2048x8192x2048; ncu at
// 4096³ 287.1 k cycles (v18 290.9 k, cuBLAS 285.5 k, S41a), 35.3 M instructions (v18 30.5 M).
// Unrolled by two again (S42b): v18's 30.7 M instructions, the same time within the noise
// (+0.0/+0.4% over v18 at 4096³, +1.2% in bf16; 0.98x / 0.995x cuBLAS). Less than predicted.
// Correct (the GPU tests, the sanitizer's lines, check --random 500 in fp16 and bf16); best
// from S42.
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
