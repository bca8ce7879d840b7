// HGEMM v30 "map_prefetch": v23, each CTA fetching its three tensor maps (A's, B's, C's) into
// the TMA unit (prefetch.tensormap) at the kernel's start, before its barriers are set up and
// the cluster meets, not on the first load and the first store that name them.
//
// Why: at 256x4096xK the gap to cuBLAS is fixed, not per k-tile (S45d, an H100, cold L2, µs,
// v23 / cuBLAS): K 512 8.8 / 7.1, 1024 10.4 / 8.8, 2048 14.0 / 12.2, 4096 21.3 / 19.1, 8192
// 35.5 / 33.7: both grow 3.6 µs per 1024 of K, and v23 starts ~1.6-1.8 µs behind. What a
// one-tile-per-CTA kernel pays once: its launch, the barriers and the cluster's meeting, the
// ring's first loads, the store. A tensor map lives in the kernel's parameters; the TMA unit
// reads it on first use, a memory round trip (from DRAM after cold timing's L2 clean) in front
// of the first load, and another in front of the first store. The published Hopper GEMMs
// (CUTLASS's collectives) prefetch their maps at the start.
//
// Prediction (before a GPU run): 0.3-0.8 µs less at every shape (a DRAM round trip or two),
// ~2-4% at 256x4096², within noise at the squares.
// Measured (S45f, an H100 at 1935-1980 MHz, v23 / v30 / cuBLAS interleaved, one process a line;
// µs): 256x4096² 21.3 / 21.6 / 19.3, 21.3 / 21.7 / 19.2, 21.3 / 21.9 / 20.7; 256x4096x512 8.67 /
// 8.61 / 7.20; 256x4096x11008 45.8 / 45.6, 45.5 / 45.3; 1024x14336x4096 177.9 / 175.3; 2048³
// 28.9 / 29.2; 4096³ 184.4 / 185.1. Level with v23 (times -1.4..+2.7% of v23's, noise 1.1-2.8%):
// the maps' first fetch is not the fixed gap. Correct (`gpu_gemm every_hgemm_variant`, the
// sanitizer's v30 lines). A step, not best.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, its tensor maps prefetched at the start.
template <class Base>
struct WsCfgPrefetchMaps : Base {
  static constexpr bool kPrefetchMaps = true;
};

// v23's widths and choice, every width's maps prefetched.
struct WsWidthsPrefetchMaps : WsWidthsEach<WsCfgPrefetchMaps, WsWidthsN64MidM> {};

template <int LOOP, class Epi>
int launch_ws_map_prefetch(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsPrefetchMaps, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
