// GEMM+bias+GELU v24 "epilogue_warps_wide_only": v23's kernels where the shape takes the
// 192- or 256-wide tile, v21's at the 128- and 64-wide tiles and on every other path. A choice
// at launch between two measured kernels; no new kernel.
//
// Why: in S48a/b (an H100, v21 / v23 interleaved) v23 was faster where the wide tiles run
// (4096³ 182.2 / 182.9 vs 184.6 / 184.6 µs, 8192³ 1418.8 vs 1428.8, 8192x4096² 362.1 vs 365.3,
// 4096x11008x4096 495.3 vs 500.5, 1024x4096² 48.8 vs 49.5, bf16 4096³ 178.8 vs 179.4; 2048³
// level; S48d with the 192-wide tile forced at 4096³: 206.2 vs 208.9) and slower at the narrow
// ones (256x4096², the 64-wide tile: 19.90 vs 19.01 µs, as v22 in S47a: 19.65 vs 18.85;
// 1024x14336x4096, the 128-wide tile: 182.0 vs 180.7, within noise). Where CTAs have several
// narrow tiles the epilogue warps' hand-off costs a tile about what it does at every width
// (two named-barrier round trips, one thread's TMA stores and their wait) for less GELU taken
// off the consumers (32 values a thread at 64 columns, 96-128 at 192-256); the 64-wide loss
// at one tile a CTA, where no hand-off runs, is not explained (docs/perf-log.md, v23).
//
// Prediction (before a GPU run): v23's times at the wide tiles' shapes, v21's at the narrow
// ones, each within its own noise.
//
// Measured (S48d, an H100, v21 / v23 / v24 / cuBLASLt interleaved, 1935-1980 MHz; µs):
// 256x4096² 18.94 (v21 19.10, v23 19.94), bf16 18.75 (18.85, 19.62), erf 19.52 (v21 19.55);
// 8192x4096² 361.34 (364.37, 360.38); 1024x14336x4096 180.13 (181.57, 180.61); 4096³ 182.34
// (183.52, 181.47); bf16 4096³ 177.54 (177.66, 178.08); 2048³ 28.26 (28.45, 28.29): as
// predicted, within each record's noise of the faster of the two. Three more processes
// (S48h): 1.016-1.023x plain HGEMM v32 at 4096³, 0.992-1.022x at 2048³, 1.004-1.006x at 8192³;
// 0.98-1.00x cuBLASLt's GELU_BIAS. Correct: every gpu_gemm test, `check --random 500`, the
// sanitizer's three v24 lines. On the H200 (S48i, three processes a square): 0.2-1.6% faster
// than v21 at several wide tiles a CTA, level at one; 1.015-1.024x plain v32 at 4096³,
// 1.005-1.009x at 8192³, 1.034-1.042x at 2048³ (one tile a CTA); 0.98-1.005x cuBLASLt's time.
// Best from S48.
#pragma once
#include "gemm/gemm_bias_gelu_23_held_half_by_consumers.cuh"

namespace rlg {

// Whether v23's epilogue warps run for a shape: its width choice (the one its launcher makes)
// is the 192- or 256-wide tile. T: half or bf16 (their resident clusters may differ).
template <int KIND, class T>
bool epilogue_warps_pay_off(int M, int N) {
  return ws_width_for<WsWidthsHeldHalfByConsumers, EpiBiasGeluSplit<KIND, T>, T>(M, N) >= 192;
}

template <int KIND>
int launch_bias_gelu_epilogue_warps_wide_only(const half *A, const half *B, const half *bias,
                                              half *C, int M, int N, int K, cudaStream_t stream) {
  if (epilogue_warps_pay_off<KIND, half>(M, N))
    return launch_bias_gelu_held_half_by_consumers<KIND>(A, B, bias, C, M, N, K, stream);
  return launch_bias_gelu_in_registers<KIND>(A, B, bias, C, M, N, K, stream);
}

}  // namespace rlg
