// GEMM+bias+GELU v21 "bias_in_registers": v20 with the bias of each tile read into registers
// when a consumer warpgroup starts the tile (ws_col_operand_early.cuh), not at its store.
// HGEMM v32's kernels otherwise; the other M paths as v20's.
//
// Why: at 2048³ (one 128x256 tile per CTA) v20 took 29.95 µs, 1.08x HGEMM v32 and 1.03x
// cuBLASLt's GELU_BIAS (S46a, H100): the whole epilogue is exposed there. Its SASS issues each
// store part's 16 bias loads after the part's barrier (the store's asm "memory" clobbers keep
// them there) and uses them a few instructions later, so each of the 256-wide tile's two parts
// starts with an L2 round trip (~0.3-0.5 µs with the queueing of 256 threads' loads).
//
// Prediction (before a GPU run): 0.4-0.8 µs less at 2048³ and 256x4096² (one tile a CTA),
// ~0.5% at 4096³; plain HGEMM v32 unchanged (its functor reads no column operand).
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
