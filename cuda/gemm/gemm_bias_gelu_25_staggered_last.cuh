// GEMM+bias+GELU v25 "staggered_last": v24, with each CTA's last tile at the 192- and 256-wide
// tiles run with its two consumer warpgroups two k-tiles apart (ws_stagger_last.cuh):
// warpgroup 1 starts once warpgroup 0 has finished two k-tiles, and each applies bias + GELU
// in registers before its store waits for anything, so warpgroup 0's GELU runs under
// warpgroup 1's last two k-tiles. The narrow tiles run v21 as in v24.
//
// Why: a CTA's last tile has no next main loop for its epilogue to hide under (v23 hides every
// other tile's first half behind the epilogue warps), so both warpgroups' GELU waits on the
// SFU with the tensor cores idle: 32768 MUFU.TANH at 16 a clock, ~2 k cycles ("The fused
// epilogue's SFU floor"). At 2048³ every CTA has one tile, and that is fused / plain's whole
// gap (S48i, the H200: 1.034-1.042; S49a, an H100: 29.2 vs 28.0 µs). Staggering the
// warpgroups moves half of it under wgmmas: two k-tiles of one warpgroup (2 x 64 x 256 x 64
// FMAs) are ~1 k tensor-core cycles, about its 16384 MUFU.TANH.
//
// Prediction (before a GPU run): ~0.5 µs off every shape's last tile: 2048³ fused / plain
// ~1.02 (H100: 28.7 µs), 4096³ ~0.3% better, 8192³ unchanged within noise. Risks: the ring's
// slack while warpgroup 0 runs ahead (two stages for the refills instead of three), and
// warpgroup 0's FMA and SFU work slowing warpgroup 1's wgmma issue.
//
// Measured (S49b, an H100, v24 / v25 / cuBLASLt interleaved, plain v32 beside; µs): slower,
// ~1.3 µs a CTA's last tile where the prediction had 0.5 µs less: 2048³ 30.43 / 30.37 / 30.37
// in three processes (v24 29.18 / 29.12 / 29.09, plain 27.7-27.8), 1024x4096² 50.30 (49.02),
// 256x11008x4096 (the 192-wide tile) 40.99 (39.65); 4096³ 183.23 / 183.52 (182.64 / 182.82),
// bf16 179.68 (179.01), 8192³ 1418.66 (1417.94). Correct: the GELU-path and bf16-epilogue GPU
// tests, the sanitizer's v25 runs (clean). The likely cause (not measured): one warpgroup
// alone does not keep the tensor cores busy in this loop, so the four k-tiles each warpgroup
// runs alone cost more than warpgroup 0's GELU saves; v17's pingpong (one warpgroup's main
// loop at a time) lost the same way. A step; v24 stays best.
#pragma once
#include "gemm/gemm_bias_gelu_24_epilogue_warps_wide_only.cuh"

namespace rlg {

// Base's configuration (v23's) with its last tile staggered by two k-tiles.
template <class Base>
struct WsCfgStaggeredLast : Base {
  static constexpr int kStaggerLast = 2;
  static_assert(Base::kEpiWarps && Base::kTmaStore && Base::kStages >= kStaggerLast + 2,
                "v25: v23's kernel; warpgroup 0's first k-tiles and the held stage fit the ring");
};

// v23's widths with the wide tiles staggered; v25 never launches the narrow ones (v21 runs
// there), so they stay v23's kernels rather than new ones.
struct WsWidthsStaggeredLast : WsWidthsHeldHalfByConsumers {
  using N256 = WsCfgStaggeredLast<WsWidthsHeldHalfByConsumers::N256>;
  using N192 = WsCfgStaggeredLast<WsWidthsHeldHalfByConsumers::N192>;
};

template <int KIND>
int launch_bias_gelu_staggered_last(const half *A, const half *B, const half *bias, half *C,
                                    int M, int N, int K, cudaStream_t stream) {
  if (epilogue_warps_pay_off<KIND, half>(M, N))
    return launch_ws_widths<WsWidthsStaggeredLast, kLoopLeanOpaqueLast>(
        A, B, C, M, N, K, EpiBiasGeluSplit<KIND>{{{bias}}}, stream);
  return launch_bias_gelu_in_registers<KIND>(A, B, bias, C, M, N, K, stream);
}

}  // namespace rlg
