// HGEMM v3 "cp_async": v2's tile with its k-tiles copied by cp.async into a 4-stage ring, so
// the copies of the next k-tiles overlap the MMAs of this one (the same kernel, ASYNC and
// 4 stages in its tile config).
//
// Measured on the H200 (docs/perf-log.md, HGEMM table; R4 / F): 273 / 275 TFLOP/s at 2048³,
// 322 / 319 at 4096³, 309 / 304 at 8192³ (predicted ~330): +80% over v2.
#pragma once
#include "gemm/hgemm_02_smem_tiles.cuh"

namespace rlg {

// v2's tile, cp.async, 4 stages.
using CfgAsync = TileCfg<128, 128, 32, 64, 32, 4, true, 1, 2>;

template <class Epi>
int launch_cp_async(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                    cudaStream_t stream) {
  return launch_tiled<CfgAsync>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
