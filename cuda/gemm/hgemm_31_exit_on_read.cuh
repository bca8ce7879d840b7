// HGEMM v31 "exit_on_read": v30, each consumer warpgroup's last TMA stores waited for only
// until they have read its staging (cp.async.bulk.wait_group.read) before the CTA leaves, not
// until their writes have completed (v14..v30's cp.async.bulk.wait_group).
//
// Why: at 256x4096xK v23's gap to cuBLAS is a fixed 1.6-1.8 µs (S45d; HGEMM v30's header). Each
// CTA there has one tile, so the wait for its store's writes to reach L2 (a round trip after the
// TMA unit read 16 KB of staging), then the cluster's last meeting, is on the kernel's last
// microsecond. The CTA's exit needs only the staging read: a grid's writes are complete and
// visible when it ends (the kernel boundary), which is what CUTLASS's sm90 epilogues rely on
// (their store tail waits with .read).
//
// Prediction (before a GPU run): 0.2-0.5 µs less at every shape whose CTAs end together (one
// wave: 256x4096xK, 2048³), within noise at the squares.
// Measured (S45f, an H100, v23 / v30 / v31 interleaved, one process a line; µs): 256x4096² 21.3
// / 21.6 / 22.0, 21.3 / 21.7 / 21.9, 21.3 / 21.9 / 21.0; 256x4096x512 8.67 / 8.61 / 8.61;
// 256x4096x11008 45.8 / 45.6 / 46.1, 45.5 / 45.3 / 46.2; 1024x14336x4096 177.9 / 175.3 / 179.6;
// 2048³ 28.9 / 29.2 / 28.9; 4096³ 184.4 / 185.1 / 184.4. Level with v30 and v23 (noise 0.3-3.4%):
// the store's last round trip is not the fixed gap either. Correct (`gpu_gemm
// every_hgemm_variant`, the sanitizer's v31 lines). A step, not best.
#pragma once
#include "gemm/hgemm_30_map_prefetch.cuh"

namespace rlg {

// Base's configuration, its last stores waited for until read.
template <class Base>
struct WsCfgExitOnRead : Base {
  static constexpr bool kExitOnRead = true;
  static_assert(Base::kTmaStore, "v31: v14's TMA store");
};

// v30's widths and choice, every width leaving on its stores' reads.
struct WsWidthsExitOnRead : WsWidthsEach<WsCfgExitOnRead, WsWidthsPrefetchMaps> {};

template <int LOOP, class Epi>
int launch_ws_exit_on_read(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsExitOnRead, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
