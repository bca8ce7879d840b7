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
// share); the squares, whose B is read from L2 by many tiles, within noise. Not measured yet (no
// GPU was lent after the build, S44).
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
