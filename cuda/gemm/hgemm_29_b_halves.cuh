// HGEMM v29 "b_halves": v23, where a tile's B boxes do not divide evenly over the pair (the
// 64-wide tile's one box, the 192-wide tile's three) every box loaded as two slices of its 64
// k-rows, each CTA multicasting one into both; the 128- and 256-wide tiles as v23 (whole boxes,
// half of them each).
//
// Why: at 256x4096² (v23's 128x64 tile, the pair along M) CTA 0's producer issues A's 16 KB box
// and the shared 8 KB B box each k-tile, CTA 1's only its A box. v28 added one more TMA
// instruction a k-tile to the CTA that loads B (an L2 prefetch of a later box, no shared memory,
// no barrier) and lost 11% at 256x4096² and 10% at 256x4096x11008 while the squares held (S45a):
// what CTA 0's producer issues is on the critical path there. cuBLAS's tile at that shape
// (64 x 128 in our frame, the pair along M sharing B, S44) has each CTA issue half of B.
//
// Prediction (before a GPU run): +3-8% at 256x4096² and 256x4096x11008; the 128/256-wide shapes
// (the squares, 1024x14336x4096) unchanged, the same code as v23's.
// Measured (S45b, an H100 at 1935-1980 MHz, v23 / v29 / cuBLAS interleaved, one process a line;
// µs): 256x4096² 21.1 / 21.0 / 21.3, 21.3 / 21.3 / 21.3, 21.5 / 21.2 / 20.5; 256x4096x11008 47.1 /
// 48.1 / 47.9, 46.8 / 47.3 / 48.5; 256x11008x4096 (192-wide) 40.6 / 40.6 / 38.3; 512x4096² 28.4 /
// 28.5 / 27.3; 1024x14336x4096 177.3 / 177.2; 4096³ 181.8 / 181.8. Level with v23 everywhere
// (times -1.6..+2.1% of v23's, the noise 1.3-2.5% a figure): who issues B does not bound
// 256x4096², so v28 lost by what its prefetch does to the memory system, not by its one more
// instruction. Correct (`gpu_gemm every_hgemm_variant`, the sanitizer's three v29 lines). A step,
// not best.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration, B's boxes in k-row slices, one per CTA, where whole boxes do not
// divide evenly over the multicast group.
template <class Base>
struct WsCfgBHalves : Base {
  static constexpr bool kBHalves = Base::kBoxes % Base::kMcast != 0;
  static_assert(!Base::kClusterN && Base::kSplitK == 1 && Base::BK % (8 * Base::kMcast) == 0,
                "v29: a pair along M sharing B (v12..v23), slices of whole 8-row swizzle atoms");
};

// v23's widths and choice, B's boxes balanced over the pair at every width.
struct WsWidthsBHalves : WsWidthsEach<WsCfgBHalves, WsWidthsN64MidM> {};

template <int LOOP, class Epi>
int launch_ws_b_halves(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsBHalves, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
