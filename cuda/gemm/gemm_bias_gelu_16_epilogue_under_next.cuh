// GEMM+bias+GELU v16 "epilogue_under_next": v15 on HGEMM v24's kernels: the bias + GELU
// functor and the store of each tile run under the next tile's first two k-tiles of wgmmas,
// from the results packed to fp16 / bf16 after the tile's last wgmma.
//
// Why: the fused form's epilogue is the SFU's (32768 MUFU.TANH a 128x256 tile, ~2 k cycles),
// which the tensor cores waited for once a tile: fused / plain 1.03-1.04 at 4096³ (S42, S43)
// against issue 42's 1.02, and 0.98-1.00x cuBLASLt's GELU_BIAS.
//
// Cost: GELU applies to A.B + bias with A.B rounded to fp16 (bf16) first, not to the fp32 sum:
// one more rounding of the pre-activation (its error shows in `check`'s worst relative error).
//
// Prediction (before a GPU run): +2-3% over v15 at 4096³ and 8192³, fused / plain ~1.01;
// unchanged at 2048³ and wherever a CTA has one tile.
// Measured (S43e, an H100; v15 / v16 / cuBLASLt GELU_BIAS, µs): 4096³ 187.8 / 190.3 / 186.5 and
// 188.8 / 189.7 / 186.5 (-0.5..-1.3%), 8192³ 1450.1 / 1448.8 / 1429.1 (+0.1%), 2048³ 31.3 / 31.7
// (-1.3%), 1024x4096² 51.9 / 52.6 (-1.3%); bf16 4096³ 184.9 / 220.6 (-19%: the bf16 256-wide
// kernels spill, 352-360 bytes of stack). Nsight Compute at 4096³: v15 302.4 k cycles, tensor
// pipe 89.1% active; v16 307.2 k, 88.4%: the SFU epilogue under the wgmmas did not give the
// tensor cores their cycles back. The pre-activation's extra rounding: worst relative error
// 2.1e-4 -> 2.9e-4 (fp16), 1.65e-3 -> 2.3e-3 (bf16) at the warp-specialized shapes of `check`.
// Correct (gpu_gemm, the sanitizer's v16 lines, check). Not best.
#pragma once
#include "gemm/gemm_bias_gelu_15_n64_mid_m.cuh"
#include "gemm/hgemm_24_epilogue_under_next.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_epilogue_under_next(const half *A, const half *B, const half *bias, half *C,
                                         int M, int N, int K, cudaStream_t stream) {
  return launch_ws_epilogue_under_next<kLoopLeanOpaqueLast>(
      A, B, C, M, N, K, EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
