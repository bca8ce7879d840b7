// GEMM+bias+GELU v13 "half_in_ring": v11 on HGEMM v21's kernels: the 128x256 tile's second
// half (bias + GELU applied in registers, as v11) staged in the ring stage its last k-tile
// emptied, not behind the first half's store. Nothing of the fused kernel is new.
//
// Why: the wait between v18's halves (~1.1 k cycles a tile at 4096³, S41a's ncu on an H100)
// is paid by v11 too, after a longer first half (its functor), so its store waits less but
// the same stall is there.
//
// Prediction (before a GPU run): HGEMM v21's gain at the squares (+1-1.5% at 4096³ and
// 8192³), so v13 / v21 about v11 / v18 (1.02-1.04 on the H100: the SFU floor stays); toward
// 1.0x cuBLASLt's GELU_BIAS at 4096³ (v11 0.98x, S39a). Elsewhere v11's kernels.
// Measured (S42a / S42b, an H100, four interleaved runs at 4096³): +0.7-1.2% over v11;
// 0.98-0.99x cuBLASLt's GELU_BIAS (v11 0.97x); v13 / v21 1.03-1.04 (v11 / v18 1.04); bf16
// +1.7% (0.975x cuBLASLt). Best from S42.
#pragma once
#include "gemm/gemm_bias_gelu_12_a_multicast.cuh"
#include "gemm/hgemm_21_half_in_ring.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_half_in_ring(const half *A, const half *B, const half *bias, half *C, int M,
                                  int N, int K, cudaStream_t stream) {
  return launch_ws_half_in_ring<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                     EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
