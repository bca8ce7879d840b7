// HGEMM v25 "release_per_warpgroup": v23, with each ring stage released once per consumer
// warpgroup instead of once per consumer warp: after a k-tile's wgmma.wait_group, threads 0 and
// 1 of the warpgroup arrive on the stage's empty barrier in CTA 0 and CTA 1 of the cluster (one
// instruction, two lanes), where v12-v23 have lane 0 of each of the 4 warps arrive on both CTAs
// in turn (8 remote arrivals a warpgroup and k-tile, 2 of them serial per warp). The empty
// barriers count 2 x CLUSTER arrivals, not 8 x CLUSTER. The published Hopper GEMMs release the
// same way (CUTLASS's PipelineTmaAsync: one signalling thread per warpgroup and destination
// CTA; the "fast.cu" kernels: thread 0 of the warpgroup): a warpgroup's wgmma is one operation,
// complete for all four warps once wait_group returns in one.
//
// Why: at the 64-wide tile (256x4096xK, v23) a k-tile is ~256 tensor-core cycles of both
// warpgroups' wgmmas, so its fixed costs (the full barrier's wait, fence, commit, wait_group,
// the releases) weigh four times what they do at the 256-wide tile; S41a's ncu found the
// consumers waiting on the ring (delivery), which a later release only delays.
//
// Prediction (before a GPU run): +1-3% at 256x4096² and 256x4096x11008, within noise at the
// 256-wide squares.
// Measured (S43h, an H100, v23 / v25 / cuBLAS interleaved, one process per line; µs): 256x4096²
// 22.0 / 21.1 / 21.2, 21.3 / 20.8 / 20.5, then 21.3 / 21.5 / 19.2 (+4.3, +2.4, -0.9%; noise
// 1.2-3.2% a figure); 256x4096x11008 46.0 / 45.4 (+1.3%); 4096³ 183.6 / 182.1, then 182.1 /
// 183.5 (+0.8, -0.8%); 8192³ 1440.6 / 1437.3 (+0.2%); 2048³ 29.3 / 29.1 (+0.7%);
// 1024x14336x4096 176.6 / 174.9 (+1.0%). Within the noise of v23 everywhere, the first 256-row
// figures aside; correct (`gpu_gemm every_hgemm_variant`, the sanitizer's five v25 lines). A
// step, not best: three more runs at 256x4096² would settle whether its +0-4% is real.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, its stages released once per consumer warpgroup.
template <class Base>
struct WsCfgWgRelease : Base {
  static constexpr bool kWgRelease = true;
  static constexpr int kReleasers = Base::kConsumerWarps / 4;
  static_assert(!Base::kPingpong && !Base::kStreamK, "v25: v23's cooperative whole tiles");
};

// v23's widths and choice, every width released per warpgroup.
struct WsWidthsWgRelease : WsWidthsEach<WsCfgWgRelease, WsWidthsN64MidM> {};

template <int LOOP, class Epi>
int launch_ws_release_per_warpgroup(const half *A, const half *B, half *C, int M, int N, int K,
                                    const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsWgRelease, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
