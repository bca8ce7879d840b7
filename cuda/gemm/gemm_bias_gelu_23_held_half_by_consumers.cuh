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
//
// Measured (S48a/b, an H100, v21 / v22 / v23 / cuBLASLt interleaved, plain v32 beside, 1965-1980
// MHz; µs): 4096³ 182.24 and 182.88 (v21 184.64, 184.64; v22 193.55, 193.10; plain 180.51,
// 180.22: fused / plain 1.010, 1.015), 8192³ 1418.78 (v21 1428.82; plain 1409.82: 1.006), bf16
// 4096³ 178.83 (179.42; plain 175.33: 1.020), 2048³ 28.58 (28.74), 8192x4096² 362.11 (365.26),
// 4096x11008x4096 495.26 (500.51), 1024x4096² 48.77 (49.47), erf 4096³ 187.23 (192.16); slower
// at 256x4096² (the 64-wide tile, one tile a CTA: 19.90 vs 19.01) and 1024x14336x4096 (the
// 128-wide: 181.98 vs 180.67, within noise). So the late held stage was v22's cost, and the
// epilogue warps pay off at the wide tiles. Correct: the GEMM+GELU GPU tests (fp16, bf16),
// the sanitizer's v23 lines. v24 runs it at the 192- and 256-wide tiles.
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
