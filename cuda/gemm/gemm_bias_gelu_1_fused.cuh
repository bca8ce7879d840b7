// GEMM+bias+GELU v1 "fused": HGEMM v8's kernels (its plain twin) with the bias+GELU functor in
// every path's epilogue, applied in fp32 before the one rounding to fp16. On the WMMA tiles
// the block's bias is copied into shared memory with the first k-tile and the warp's tile is
// parked in the pipeline's shared memory where it fits (the 128x256 and 256x128 tiles), then
// applied 4 chunks at a time on the way out in a rolled loop, else applied to the
// accumulators in registers; the 128x128 split-K tile and the TMA slabs stage the bias in
// shared memory at their start; the register slabs apply it at their store. The tanh form runs
// on the hardware tanh, the erf form as a logistic polynomial (gelu.cuh).
//
// Measured on the H200 (docs/perf-log.md, fused section; interleaved with the plain GEMM and
// the unfused pair): the epilogue in registers with the hardware tanh (P10) fused / plain
// 1.016-1.021 at 1..1024 x 4096², 1.038 at 2048³; parked (E2) 1.033-1.035 at 2048³; the bias
// staged (old v19, S1) 64 x 4096² 25.02 -> 24.26 us; the rolled loop and the erf polynomial
// (old v20, Q8) the erf form at 2048³ 73.3 -> 51.0 us (the unfused pair 55.4), tanh 1.046 ->
// 1.016; on the slabs' st.async exchange (old v21, C4 / C5) fused / plain 1.003-1.021,
// unfused / plain 1.149-1.172 at 4 and 16 rows.
#pragma once
#include "gemm/bias_gelu_epilogue.cuh"
#include "gemm/hgemm_08_gemv_slabs.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_fused(const half *A, const half *B, const half *bias, half *C, int M, int N,
                           int K, cudaStream_t stream) {
  return launch_gemv_slabs(A, B, C, M, N, K, EpiBiasGelu<KIND, false>{bias}, stream);
}

}  // namespace rlg
