// HGEMM v8 "gemv_slabs": v7, with M <= 64 on the GEMV family's slab kernels where they suit
// the shape (through its declared interface, gemv/gemv_slabs_api.cuh): the TMA slabs at
// 9..64 rows (W and x through a TMA ring in shared memory), the register slabs at M <= 16. At
// these M the tiles waste most of every MMA and split-K ends in a reduction tail; a slab
// streams W once at the read's pace and finishes each output in one block, with the epilogue
// at its store (the run-time descriptor epi.slab_epi()).
//
// Measured on the H200 (docs/perf-log.md, HGEMM old v14, v16, v17, v18, v21; one launch, µs):
// the register slabs (v14) at 1 / 4 / 16 x 4096² 18.9 / 20.3 / 23.1 -> 17.8 / 18.7 / 20.8, at
// 8192² 45.0 / 48.7 / 57.0 -> 39.4 / 41.7 / 44.3 (cuBLAS 49.8 / 49.7 / 47.5); the TMA slabs
// (v16, T2, x cuBLAS's speed) at 32 x 4096² 0.92 -> 1.12, 64 x 4096² 0.80 -> 0.87, 32 x 8192²
// 0.65 -> 1.05; the clusters pushing their sums (v17): 64 x 4096² 25.2 -> 24.3; 2..8 rows in
// GEMV v14's loop order (v18): 5-6% off (4 x 4096² 16.94 -> 15.90); the sums sent by st.async
// (v21, GEMV v15): 0.2-0.3 us off at 1..64 rows.
#pragma once
#include "gemm/hgemm_07_cluster_split_k.cuh"
#include "gemm/path_or.cuh"

namespace rlg {

// The GEMV's slabs where one suits the shape; *launched false: none did, nothing ran. They
// take the epilogue's run-time form: SlabEpi runs the one instantiation the GEMV and every
// family share, SlabEpiResidual the residual's own (the launchers' second overloads); a functor
// without one runs the tiles instead.
template <class Epi>
int try_gemv_slabs(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                   cudaStream_t stream, bool *launched) {
  *launched = false;
  if constexpr (HasRuntimeForm<Epi>::value) {
    const int st = rl_gemv_tma_slabs_gemm(A, B, C, M, N, K, epi.slab_epi(), Epi::kColOperand,
                                          stream, launched);
    if (*launched) return st;
    return rl_gemv_slabs_gemm(A, B, C, M, N, K, epi.slab_epi(), stream, launched);
  } else {
    return 0;
  }
}

template <class Epi>
int launch_gemv_slabs(const half *A, const half *B, half *C, int M, int N, int K,
                      const Epi &epi, cudaStream_t stream) {
  return path_or([&](bool *done) { return try_gemv_slabs(A, B, C, M, N, K, epi, stream, done); },
                 [&] { return launch_cluster_split_k(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
