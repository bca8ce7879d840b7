// GEMM+bias+GELU v23 "held_half_by_consumers": v22, with the 256-wide tile's second half (the
// one staged in the ring stage its last k-tile read) finished and stored by the consumers as
// in v21, so that the stage goes back to the producer in the next tile's first k-tile; the
// epilogue warps take only the first half (in the consumers' own staging). The other widths
// have one part and run as v22.
//
// Why: v22 was 3-5% slower than v21 where CTAs have several tiles (S47a, an H100: ~4 k cycles a
// tile at 4096³), more than the epilogue warps' whole work. Two causes fit: the held stage
// back late (after the epilogue warps' first half, its store's read and a reload, while the
// consumers want it at the next tile's fourth k-tile), or the GELU's FMA and SFU work slowing
// the wgmmas beside it. This step keeps the second and removes the first: level with v21 or
// better says the held stage was v22's cost; still slower says the overlap itself is.
//
// Prediction (before a GPU run): if the held stage was the cost, fused / plain ~1.01 at 4096³
// (half of v21's per-tile epilogue hidden under three tiles of four); 2048³ as v21.
#pragma once
#include "gemm/gemm_bias_gelu_22_epilogue_warps.cuh"

namespace rlg {

// Base's configuration (v22's), its held half finished by the consumers.
template <class Base>
struct WsCfgHeldHalfByConsumers : Base {
  static constexpr bool kEpiHeldByConsumers = Base::kHalfInRing;
  static_assert(Base::kEpiWarps, "v23: v22's epilogue warps");
};

// v22's widths and choice; only the 256-wide tile has a held half.
struct WsWidthsHeldHalfByConsumers
    : WsWidthsEach<WsCfgHeldHalfByConsumers, WsWidthsEpilogueWarps> {};

template <int KIND>
int launch_bias_gelu_held_half_by_consumers(const half *A, const half *B, const half *bias,
                                            half *C, int M, int N, int K, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsHeldHalfByConsumers, kLoopLeanOpaqueLast>(
      A, B, C, M, N, K, EpiBiasGeluSplit<KIND>{{{bias}}}, stream);
}

}  // namespace rlg
