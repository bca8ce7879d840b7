// GEMM+bias+GELU v15 "n64_mid_m": v14 on HGEMM v23's kernels: the lean 64-wide tile also at
// 65..512 rows where the cost model gives it that width (256x4096x4096, 256x4096x11008), where
// v9's tile with the functor ran before. Nothing of the fused kernel is new.
//
// Why: fused against cuBLASLt's GELU_BIAS at 256x4096x4096 is the fusion sweep's widest gap
// (1.18x on the H200, S43a), on v9's tile; HGEMM v23's 128x64 tile is ~4% faster there.
//
// Prediction (before a GPU run): HGEMM v23's gain at those shapes (+4-5%), v14's kernels
// elsewhere.
// Measured (S43d, an H100, at 256x4096x4096; v14 / v15 / cuBLASLt GELU_BIAS, µs): 22.5 / 21.8
// / 19.6 and 22.3 / 22.1 / 22.2 (+1-3%), bf16 22.1 / 21.8 / 19.6 (+1.4%). Less than HGEMM
// v23's gain: the functor's tail is the same. Correct (`gpu_gemm`, the sanitizer's v15 line,
// `check --random 200`: 585 cases, bf16 243). Best from S43.
#pragma once
#include "gemm/gemm_bias_gelu_14_lean_everywhere.cuh"
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

template <int KIND>
int launch_bias_gelu_n64_mid_m(const half *A, const half *B, const half *bias, half *C, int M,
                               int N, int K, cudaStream_t stream) {
  return launch_ws_n64_mid_m<kLoopLeanOpaqueLast>(A, B, C, M, N, K,
                                                  EpiBiasGelu<KIND, true>{bias}, stream);
}

}  // namespace rlg
