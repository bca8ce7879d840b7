// HGEMM v23 "n64_mid_m": v22, with its 64-wide tile (128 x 64, 8 stages, a cluster of 2 along
// M) also at 65..512 rows, where v13's cost model prefers it; since v13 that width ran only
// above 512 rows and v9's 128x64 tile over all of K took the mid-M shapes. Nothing else
// changes: at 256 rows the cost model picks 64 where the tiles fit one wave (N up to ~4224),
// 192 at 256x11008, 256 at 256x14336, as v22.
//
// Why: S34f measured this kernel's 64-wide tile 1.04-1.06x slower than v9's tile at
// 256x4096x4096 and 256x4096x11008, so v13 kept it above 512 rows. v22's lean descriptors
// turned that around: forced to 64 (ROOFLINE_WS_TILE_N=64) v22 took 21.1 µs at 256x4096² on
// the H200 against v9's 22.0 (S43a), and on an H100 (S43c, three interleaved runs in one process
// each) 21.5 / 21.7 / 21.5 against v9's 22.4 / 22.3 / 22.5 at 256x4096², 45.5 / 45.1 / 46.1
// against 47.9 / 48.0 / 48.0 at 256x4096x11008.
//
// Prediction (before a run of this build): +4-5% over v22 at 256x4096x4096 and 256x4096x11008
// (the forced runs), the same kernels elsewhere (every shape whose choice is not 64 at M <= 512).
// Still ~0.85x cuBLAS at 256x4096² on the H200 (cuBLAS 17.6 µs): the gap is the 64-wide
// tile's, not the choice.
// Measured (S43d, an H100, three processes, each v22 / v23 / cuBLAS interleaved; µs): 256x4096²
// 22.2 / 21.2 / 20.2, 22.3 / 21.2 / 20.1, 22.0 / 21.1 / 19.2 (+4.5%); 256x4096x11008 47.7 /
// 45.0 / 44.9, 47.7 / 45.1 / 48.3, 47.6 / 45.7 / 48.2 (+4-6%; 0.93-1.07x cuBLAS, whose figure
// moves between processes). As predicted. Correct: `gpu_gemm` (all five tests), the sanitizer's
// v23 / v15 lines, `check --random 200` (hgemm 499 cases, bf16 178 with --random 100). Best
// from S43.
#pragma once
#include "gemm/hgemm_22_lean_everywhere.cuh"

namespace rlg {

// v22's widths, the 64-wide one at every M the cost model gives it.
struct WsWidthsN64MidM : WsWidthsLean {
  static constexpr bool kN64MidM = true;
};

template <int LOOP, class Epi>
int launch_ws_n64_mid_m(const half *A, const half *B, half *C, int M, int N, int K,
                        const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsN64MidM, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
