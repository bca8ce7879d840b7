// HGEMM v16 "staged_halves": v15, with the 128x256 tile's results staged and stored half a tile
// (128 columns) at a time, so that its staging takes 32 KB instead of 64 and the ring gets its
// fourth stage back (4 x 48 KB + 32 KB, as v12). The other widths are v15's: 192 columns do
// not halve into 64-column boxes, and 128 and 64 already fill shared memory with their ring.
//
// Why: v14's TMA store cost the 256-wide tile a stage (3 of 48 KB). A stage is the producer's
// lead: it reloads a slot once both consumer warpgroups released it, one k-tile after they
// used it, and a consumer needs it again S - 1 k-tiles later: ~0.74 us of lead with 3 stages at
// 4096³ (a k-tile of 128x256x64 on 132 SMs at ~750 TFLOP/s), about what a 48 KB TMA load from
// L2 takes under load; 4 stages give ~1.5 us. The price: a warpgroup waits, between its halves,
// until the TMA unit has read the first half's 16 KB (cp.async.bulk.wait_group.read), ~0.1-0.3
// us a tile of ~47.
//
// Prediction (before a GPU run): +0-2% at 2048-8192³ over v14 / v15 (which are the same there);
// the fused forms the same. If TMA latency is not exposed at 3 stages (v14 measured 1-3% over
// v12's 4 stages and the old store), this step loses the halves' wait.
// Measured (S37, interleaved with v14 and cuBLAS): +1.9% over v14 at 4096³ (0.98x cuBLAS), +1.2%
// at 8192³ (1.00x), -0.4% at 2048³, +2.3% at 1024x11008x4096; at 256x4096² v15's cut (0.79x).
#pragma once
#include "gemm/hgemm_15_stream_k.cuh"

namespace rlg {

template <int LOOP, class Epi>
int launch_ws_staged_halves(const half *A, const half *B, half *C, int M, int N, int K,
                            const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) {
        return try_ws_stream_k<WsWidths<true, true, true>>(A, B, C, M, N, K, epi, stream, done);
      },
      [&] { return launch_ws_tma_store<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
