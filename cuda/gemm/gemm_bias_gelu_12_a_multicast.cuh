// GEMM+bias+GELU v12 "a_multicast": v11 on HGEMM v19's kernels: the 65..512-row shapes that
// no width of v18 suits (256x4096², 256x4096x11008) on the warp-specialized kernel's 128x64
// pairs along N, A shared by multicast, bias + GELU in the consumers' registers and the tile
// stored by TMA, instead of v2's bias + GELU at the store of v9's 128x64 tile. Nothing of the
// fused kernel is new.
//
// Why: at 256x4096² the fused form measured 1.136x cuBLASLt's GELU_BIAS time (S37c), the
// fusion sweep's worst gap; it runs v9's tile there, as the plain GEMM did before v19.
//
// Prediction (before a GPU run): HGEMM v19's gain at those shapes (~15%), so ~0.98-1.0x
// cuBLASLt at 256x4096²; elsewhere v11's kernels.
// Measured (S39a, an H100): 25.8 us at 256x4096² against v7's 22.6 (cuBLASLt 21.0): HGEMM
// v19's loss. Not best.
#pragma once
#include "gemm/gemm_bias_gelu_11_halves_whole_tiles.cuh"
#include "gemm/hgemm_19_a_multicast.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_a_multicast(const half *A, const half *B, const half *bias, half *C, int M,
                                 int N, int K, cudaStream_t stream) {
  return launch_ws_a_multicast<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                    EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
