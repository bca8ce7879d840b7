// GEMM+bias+GELU v21 "bias_in_registers": v20 with the bias of each tile read into registers
// when a consumer warpgroup starts the tile (ws_col_operand_early.cuh), not at its store.
// HGEMM v32's kernels otherwise; the other M paths as v20's.
//
// Why: at 2048³ (one 128x256 tile per CTA) v20 took 29.95 µs, 1.08x HGEMM v32 and 1.03x
// cuBLASLt's GELU_BIAS (S46a, H100): the whole epilogue is exposed there. Its SASS issues each
// store part's 16 bias loads after the part's barrier (the store's asm "memory" clobbers keep
// them there) and uses them a few instructions later, so each of the 256-wide tile's two parts
// starts with an L2 round trip (estimated, not measured apart: ~0.3-0.5 µs each).
//
// Prediction (before a GPU run): 0.4-0.8 µs less at 2048³ and 256x4096² (one tile a CTA),
// ~0.5% at 4096³; plain HGEMM v32 unchanged (its functor reads no column operand).
//
// Measured (S46b/c/f, an H200, v20 / v21 / cuBLASLt GELU_BIAS interleaved, SM clocks 1935-1980
// MHz; µs): 2048³ 29.73 / 29.12 / 28.86, 29.47 / 28.61 / 29.22, 29.41 / 28.58 / 28.99 (-0.6 to
// -0.9 µs); 256x4096² 19.10 / 18.46 / 18.30 and 19.10 / 18.18 / 17.54 (-0.6, -0.9), but 18.69 /
// 18.91 and 18.69 / 18.85 in S46b (+0.2, noise 2-4%); 1024x4096² 50.53 / 49.06 / 49.60 and
// 50.37 / 49.18 / 50.27; 4096³ 187.41 / 185.34 / 183.49 and 185.79 / 183.58 / 184.42 (185.81 /
// 187.30 in S46b); 8192x4096² 365.18 / 362.40 / 360.64 and 368.00 / 363.22 / 362.05; 8192³
// 1423.33 / 1415.52 / 1408.51; bf16 2048³ -4.1%, 4096³ -2.2%; erf 2048³ -3.5%. Faster in 15
// of 18 pairs (0.5-4.8%), within noise in the other 3: as predicted at the one-tile shapes, and
// more than predicted where CTAs have several tiles (each tile's two L2 round trips went).
// Against cuBLASLt (time ratio): 0.98-1.02x at 1024-8192 rows and 2048³, 1.01-1.04x at
// 256x4096². Correct (the GPU tests on the H200, `check --random 500`, the sanitizer's three
// v21 lines). Best from S46.
#pragma once
#include "gemm/gemm_bias_gelu_20_producer_tail.cuh"

namespace rlg {

// The bias + GELU functor, its bias loaded at the tile's start by the kernels that can.
template <int KIND, class T = half>
struct EpiBiasGeluEarly : EpiBiasGelu<KIND, true, T> {
  static constexpr bool kColOperandEarly = true;
};

template <int KIND>
int launch_bias_gelu_in_registers(const half *A, const half *B, const half *bias, half *C, int M,
                                  int N, int K, cudaStream_t stream) {
  return launch_ws_producer_tail<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                      EpiBiasGeluEarly<KIND>{{bias}}, stream);
}

}  // namespace rlg
