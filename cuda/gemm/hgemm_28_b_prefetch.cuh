// HGEMM v28 "b_prefetch": v23, its producer also fetching each B box it loads 8 k-tiles ahead
// into L2 (cp.async.bulk.prefetch.tensor: no shared memory, no barrier), at every width.
//
// Why: at 256x4096² B (32 MB) streams from DRAM once, and Nsight Compute at base clocks (S44f, an
// H100, 256x4096²) finds v23's DRAM busy 46% of its 24.7 µs against cuBLAS's 58% of 19.7: the
// same 35.7 MB read, the same 201 MB delivered to the SMs, v23's tensor pipe 55% active against
// 74%; v23's time grows as the SM clock falls and cuBLAS's hardly moves (v23 24.4 µs at 1.40 GHz,
// 21.1 at 1.76; cuBLAS 19.8 and 19.4, S44e). What may bound B's delivery is how much of it is in
// flight: a pair's ring holds 8 k-tiles, 64 KB of B (one 8 KB box a k-tile), 4 MB over the 64
// pairs, about one microsecond of DRAM time, and a stage's next B read starts only once both CTAs
// of the pair released it. A prefetch 8 k-tiles ahead doubles the DRAM reads in flight without
// shared memory; the ring's own loads then hit L2.
//
// Prediction (before a GPU run): 256x4096² and 256x4096x11008 +5-10% (toward cuBLAS's DRAM
// share); the squares, whose B is read from L2 by many tiles, within noise.
// Measured (S45a, an H100, v23 / v28 / cuBLAS interleaved, one process a line; µs): 256x4096²
// 21.2 / 23.6 / 21.2, 21.2 / 23.6 / 19.3, 21.1 / 23.5 / 18.6 (11% slower); 256x4096x11008 45.3 /
// 50.2, 45.8 / 50.1 (10% slower); 256x11008x4096 41.4 / 42.7; 1024x14336x4096 173.8 / 169.5
// (2.5% faster; S45b: 177.3 / 177.5, level); 4096³ 182.2 / 181.9; 2048³ 29.4 / 29.2. Wrong where
// it was aimed: B's DRAM reads in flight do not bound 256x4096², and (by elimination: v29, which
// moves half of B's issue to the other CTA, is level with v23, so the issuing CTA is not the
// bound) the prefetches slow the loads behind them. Correct (`gpu_gemm every_hgemm_variant`,
// the sanitizer's v28 lines). A step, not best.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, B's boxes prefetched 8 k-tiles ahead.
template <class Base>
struct WsCfgPrefetchB : Base {
  static constexpr int kPrefetchB = 8;
  static_assert(!Base::kClusterN, "v28: B's boxes loaded by their own CTA (v12..v23's pairs)");
};

// v23's widths and choice, every width's B prefetched.
struct WsWidthsPrefetchB : WsWidthsEach<WsCfgPrefetchB, WsWidthsN64MidM> {};

template <int LOOP, class Epi>
int launch_ws_b_prefetch(const half *A, const half *B, half *C, int M, int N, int K,
                         const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsPrefetchB, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
