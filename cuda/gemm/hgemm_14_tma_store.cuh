// HGEMM v14 "tma_store": v13, with the warp-specialized kernel's results leaving through the TMA
// unit (gemm/ws_store_tma.cuh): each consumer warpgroup applies the functor in registers,
// writes its 64 x BN fp16 tile into shared memory with stmatrix, and one thread hands it to
// cp.async.bulk.tensor while the warpgroup starts the next tile's wgmmas. The staging (16-64 KB)
// takes the place of v12's 32 KB of fp32 parking, so the 256-wide tile keeps 3 stages of 48 KB
// instead of 4; the other widths keep theirs.
//
// Why: v12 / v13 reach 0.96x cuBLAS at 4096³ and 0.98x at 8192³; cuBLAS's own kernel there is the
// same cooperative design (S34e), and the difference is the store: v12's eight passes a tile,
// each behind a named barrier, with every thread storing 16 bytes at a time, all while the
// tensor cores wait, and ~4 us a tile with the tanh GELU's functor (fused 1.05-1.08x plain). The
// published Hopper kernels that pass cuBLAS (the "fast.cu" worklog: 128x256 tiles, 3 stages, a
// cluster of 2, the store through TMA from stmatrix'ed shared memory) spend one barrier there.
//
// Prediction (before a GPU run): the store's exposed time per tile from ~1.5-2 us to ~0.3-0.5 us,
// against ~47 us a tile at 4096³: +2-3% (0.98-1.00x cuBLAS), +1-2% at 8192³; the fused form
// within 1.02-1.03x of plain (the functor's ~1 us of tanh.approx per tile still waits for the
// tensor cores). Three stages instead of four could cost the main loop if TMA latency shows:
// that is what the first run answers.
// Measured (S35a, kernel timing, cold L2, interleaved with v12, v13 and cuBLAS; x cuBLAS):
// 2048³ 0.95 (v12 0.92), 4096³ 0.97 (0.96), 8192³ 1.00 (0.98); 256x11008x4096 0.98 (v13 0.95),
// 1024x11008x4096 0.95 (0.94), 1024x14336x4096 0.99 (0.95). Three stages cost nothing visible:
// the store's exposed time was the difference. The best HGEMM from here.
#pragma once
#include "gemm/hgemm_13_ws_tile_per_shape.cuh"

namespace rlg {

template <int LOOP, class Epi>
int launch_ws_tma_store(const half *A, const half *B, half *C, int M, int N, int K,
                        const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidths<true>, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
