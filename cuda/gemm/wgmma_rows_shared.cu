// The few-row wgmma tile (HGEMM v10) with the run-time epilogue, instantiated once for both
// families: the plain GEMM (bias null, no GELU), the unfused pair's GEMM and the fused kernel
// run the same code, so none of them finds it colder than the others in an interleaved run.
// (GEMM+bias+residual runs the tile built for its own functor: gemm_residual.cu.)
#include "gemm/hgemm_10_wgmma_few_rows.cuh"

int rl_wgmma_rows_launch(const half *A, const half *B, half *C, int M, int N, int K, SlabEpi epi,
                         cudaStream_t stream, bool *launched) {
  return rlg::launch_wgmma_rows(A, B, C, M, N, K, rlg::WrRuntimeEpi{epi}, stream, launched);
}
