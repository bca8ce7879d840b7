// HGEMM v20 "lean_descriptors": v19, its consumers building the two wgmma descriptors once
// and moving them on by adds: stage s, k-step kk is stage 0's descriptor plus the byte offset
// / 16 in its start-address field (one add each), where v12..v19 build every descriptor from
// its shared address (mask, shift, or, and the moves into uniform registers around each
// wgmma). Only v19's 128x64 pairs take the lean loop (WsCfgNLean); every other path is v19's.
//
// Why: Nsight Compute at 256x4096² (S40b, an H100) found v19 issuing 2.4x the
// instructions of cuBLAS's kernel of the same tile (6.47 M against 2.65 M; ALU pipe 19%
// against 3%) while its L2 delivered at 66% of its peak to cuBLAS's 79%. At n64 a k-step's
// wgmma is short (a 64x64x16 is ~32 tensor clocks), and v19's SASS spends 77-99 instructions
// a k-tile per warp around its four wgmmas, most of them rebuilding descriptors (the
// hypothesis: the next wgmma's issue waits on that arithmetic). v20's SASS: 45, the descriptors in uniform
// registers (a UIADD3 and the UMOVs of the high word before each HGMMA).
//
// Prediction (before a GPU run): if the issue gaps were the cost, 256x4096² from v19's 24.2
// us (ncu) toward cuBLAS's 20.6, i.e. at or below v9's 21.7; if the pair's coupled ring is the
// cost (S39a's reading), no change. Either way the run tells which. Unchanged elsewhere (the
// same kernels as v19 at every other shape).
// Measured (S41a, an H100, ncu at 256x4096², caches flushed): 3.99 M instructions (v19 6.47 M),
// 33.5 k SM active cycles (S40b: v19 35.6 k, v9's tile 31.4 k, cuBLAS 29.5 k), tensor pipe 38%,
// L2 68%: 6% faster than v19, still 7% slower than v9's tile. The consumers now wait on the
// ring's full barriers (27% of the samples), not on their own issue: the ring's delivery is
// the cost, as S39a read it. Correct (gpu_gemm, sanitizer clean); v9's tile stays at M = 256.
#pragma once
#include "gemm/hgemm_19_a_multicast.cuh"

namespace rlg {

// v19's tile and ring with the lean descriptors: 128 x 64, 8 stages, a pair along N.
using WsMidMLean = WsCfgNLean<64, 8, 8>;

template <int LOOP, class Epi>
int launch_ws_lean_descriptors(const half *A, const half *B, half *C, int M, int N, int K,
                               const Epi &epi, cudaStream_t stream) {
  return launch_ws_a_multicast<LOOP, Epi, WsMidMLean>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
