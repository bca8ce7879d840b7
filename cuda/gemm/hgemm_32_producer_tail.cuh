// HGEMM v32 "producer_tail": v23, its cluster's first meeting with a relaxed arrive and its
// last meeting gone: each CTA's producer, after its last load, waits as for one more round of
// the ring until every stage it filled has been released by the consumers of every CTA that
// read it (CUTLASS's producer tail), and the CTA then leaves on its own. The stage holding the
// last tile's second half (the 256-wide tile, v21) is released at the end for that wait.
//
// Why: at 256x4096xK v23's gap to cuBLAS is a fixed 1.6-1.8 µs (S45d; v30 and v31 took two
// other fixed costs away and stayed level). Nsight Compute's source page of v23 at 256x4096²
// (S44f, base clocks) puts warp stalls on the two cluster meetings: the arrive's release
// compiles to ERRBAR + UCGABAR_ARV, 56 samples at the start and 74 at the end of 1886 (a sample
// ~28 k warp-cycles: ~1 k SM cycles a warp at each meeting, ~0.5 µs at 1.98 GHz), plus the
// waits (UCGABAR_WAIT). cuBLAS's kernel there has no sample on a cluster barrier at all. At the
// start the release orders nothing the barriers' init fence (fence.mbarrier_init.release.cluster,
// made for a relaxed arrive) does not; at the end the meeting only keeps a CTA from leaving
// while its peer may still arrive on its barriers, which the producer's own wait on its empty
// barriers ensures.
//
// Prediction (before a GPU run): 0.5-1.0 µs less wherever a CTA has one tile (256x4096²
// 21.3 -> ~20.5 µs, 4%; 2048³ ~2%), within noise at the squares (4+ tiles a CTA).
//
// Measured (S46a, H100, interleaved with v23 and cuBLAS, SM clocks 1950-1980 MHz): 256x4096²
// 19.2-19.5 µs in three processes, v23 21.3-21.7 (9-11% less), cuBLAS 20.6-21.4 (1.07-1.10x
// cuBLAS); K = 512 1.05 µs less (7.78 vs 8.83; cuBLAS 7.36); 256x11008x4096 -4%; 2048³ -4.6%
// (27.71 vs 29.06 µs; 0.98x cuBLAS); 4096³ -1.0% (1.004x cuBLAS); 256x4096x11008 -0.5..-1.9%;
// 1024x14336x4096 +0.4% (noise; 0.94x cuBLAS, as v23). bf16: 256x4096² -9.4%, 4096³ -0.5%.
// The gain at the one-tile shapes is twice the prediction, which counted only the meetings'
// own stall samples; what else the last meeting held (a CTA waiting for its peer's last
// tile) was not measured apart. Correct: the every-variant, GELU-path and bf16 GPU tests, and
// compute-sanitizer's four tools on its lines (K tail, K = 8, the held stage, bf16).
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, its cluster met once, relaxed, and left on the producer's tail.
template <class Base>
struct WsCfgProducerTail : Base {
  static constexpr bool kProducerTail = true;
  static_assert(!Base::kPingpong && !Base::kStreamK && Base::kSplitK == 1 &&
                    !Base::kStoreUnderNext,
                "v32: v23's cooperative whole tiles (the tail waits on the ring alone)");
};

// v23's widths and choice, every width with the producer's tail.
struct WsWidthsProducerTail : WsWidthsEach<WsCfgProducerTail, WsWidthsN64MidM> {};

template <int LOOP, class Epi>
int launch_ws_producer_tail(const half *A, const half *B, half *C, int M, int N, int K,
                            const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsProducerTail, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
