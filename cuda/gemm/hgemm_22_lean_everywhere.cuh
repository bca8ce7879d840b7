// HGEMM v22 "lean_everywhere": v21 with v20's lean wgmma descriptors at every tile width
// (128 x 256 / 192 / 128 / 64): each consumer warpgroup builds its A and B descriptors once and
// moves them on by adds (stage s, k-step kk: stage 0's descriptor plus the byte offset / 16),
// where v21 builds each one from its shared address before every wgmma. The other paths are
// v21's.
//
// Why: Nsight Compute at 4096³ (S41a / S42b, an H100) counts ~30.7 M instructions for v18 /
// v21 against 17.2 M for cuBLAS's kernel of the same tile area, the ALU pipe at 13% against
// 3%; at 256x4096² the lean descriptors took v19's 128x64 pairs from 6.47 M to 3.99 M
// instructions and 6% of their time (v20, S41a). The narrower widths pay more of it per FLOP:
// 1024x14336x4096 runs the 128x128 width at 0.94-0.955x cuBLAS (S40a, S42a).
//
// Prediction (before a GPU run): ~0.6x v21's instructions; +0-1% at 4096³ / 8192³ (the
// 128x256 loop waits on its wgmmas, not on its issue), +1-3% where the 128x128 / 192 widths
// run (1024x14336x4096, 256x11008x4096). Risk: none for correctness beyond v20's (the same
// descriptor arithmetic; every operand below 256 KB of shared memory, so the 14-bit address
// field never carries).
// Measured (S43a, the H200, two interleaved runs, medians of cold kernel time, µs; v21 / v22 /
// cuBLAS): 4096³ 183.4 / 183.1 / 181.9 and 183.7 / 182.9 / 184.3 (+0.2 / +0.4%), 8192³ 1471 /
// 1464 / 1475 and 1473 / 1461 / 1476 (+0.5 / +0.8%: 1.007-1.011x cuBLAS), 2048³ level (0.95x),
// 1024x14336x4096 180.6 / 167.8 / 173.5 and 177.1 / 167.8 / 173.5 (+5.5-7.6%: 1.03x cuBLAS),
// 256x11008x4096 +0.5 / +4.5% (0.97 / 1.01x), 2048x8192x2048 level (1.00x); the 128x64 width
// forced at 256x4096² 21.1 against v21's 22.8 (v9's tile, which runs there, 22.0). As predicted
// at the squares; more than predicted where the 128-wide tile runs. Correct (`gpu_gemm`, the
// sanitizer's five v22 lines clean, S43b); best from S43.
#pragma once
#include "gemm/hgemm_21_half_in_ring.cuh"

namespace rlg {

// Base's configuration with v20's lean descriptors.
template <class Base>
struct WsCfgLeanDesc : Base {
  static constexpr bool kLeanDesc = true;
};

// Base's widths and choice (its flags, such as kN64MidM), every width's configuration through
// the wrapper Wrap (a step's change to the kernel: v22's, v24's, v25's).
template <template <class> class Wrap, class Base>
struct WsWidthsEach : Base {
  using N256 = Wrap<typename Base::N256>;
  using N192 = Wrap<typename Base::N192>;
  using N128 = Wrap<typename Base::N128>;
  using N64 = Wrap<typename Base::N64>;
};

// v21's widths, every one with the lean descriptors.
struct WsWidthsLean : WsWidthsEach<WsCfgLeanDesc, WsWidthsHalfInRing> {};

template <int LOOP, class Epi>
int launch_ws_lean_everywhere(const half *A, const half *B, half *C, int M, int N, int K,
                              const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsLean, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
