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
