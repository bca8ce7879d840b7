// GEMM+bias+GELU v22 "epilogue_warps": v21, with GELU applied by the producer warpgroup's
// three idle warps while the consumers run the next tile's main loop (ws_epilogue_warps.cuh).
// A consumer warpgroup adds the bias (in registers since v21) and writes the pre-activation,
// rounded to fp16 / bf16, into its staging as it would write results; warps 1-3 of the
// producer warpgroup apply the tanh (or erf) form in place and store the tile by TMA. The
// CTA's last tile is finished by its consumers as in v21 (nothing runs under it).
//
// Why: in the cooperative tile both consumer warpgroups run the functor after the tile's last
// wgmma and the tensor cores wait: GEMM+bias+GELU is 1.03-1.04x the plain GEMM at 4096³ (v20,
// v21; the SFU's 32768 MUFU.TANH a 128x256 tile: ~2 k cycles, "The fused epilogue's SFU
// floor"), against the issue's 1.02. v24 moved the functor under the next tile's first two
// k-tiles in the same warps and the tensor pipe's active share did not move; here the
// consumers' epilogue is the plain GEMM's (stmatrix and a barrier) and the SFU work is
// another warp's.
//
// Cost: GELU sees the pre-activation rounded to T (v16's extra rounding: ~1 ulp more error at
// most); three warps on three of the SM's four SFU quarters take ~2.7 k cycles a 128x256
// tile, under a main loop of ~66 k at K = 4096 (~8 k at K = 512); the held stage goes back to
// the producer ~1.5-2 k cycles into the next tile instead of at its first k-tile.
//
// Prediction (before a GPU run): fused / plain from 1.03-1.04 to ~1.01 at 4096³ (one tile of
// four a CTA still exposed), ~1.005 at 8192³; 2048³ and the one-tile shapes as v21 (their
// only tile is the last).
// Measured (S47a, an H100, interleaved with v21 and cuBLASLt, plain v32 beside): correct (the
// GEMM+GELU GPU tests in fp16 and bf16, the sanitizer's v22 lines), but 3-5% slower than v21
// where CTAs have several tiles (4096³ 193.9 vs 184.9 µs, 8192³ 1491 vs 1451, bf16 4096³ 188.7
// vs 180.2; fused / plain 1.070 at 4096³ against v21's 1.021) and level where they have one
// (2048³ 28.58 vs 28.64). The perf log's v22 section says where the ~4 k cycles a tile may go
// (the held stage back late; the GELU beside the wgmmas). A step, not best.
#pragma once
#include "gemm/gemm_bias_gelu_21_bias_in_registers.cuh"

namespace rlg {

// v21's functor, split: pre (the bias add, halved for the tanh form: rl_bias_gelu_fast's
// argument) by the consumers, post (the GELU of it) by the epilogue warps.
template <int KIND, class T = half>
struct EpiBiasGeluSplit : EpiBiasGeluEarly<KIND, T> {
  static constexpr bool kSplitApply = true;
  __device__ __forceinline__ float pre(float v, float op) const {
    return KIND == 0 ? fmaf(v, 0.5f, op) : v + op;
  }
  __device__ __forceinline__ float post(float x) const {
    return KIND == 0 ? rl_gelu_tanh_fast_half(x) : rl_gelu_erf_fast(x);
  }
};

// Base's configuration with the epilogue warps.
template <class Base>
struct WsCfgEpilogueWarps : Base {
  static constexpr bool kEpiWarps = true;
  static_assert(Base::kTmaStore && !Base::kStreamK && !Base::kPingpong && Base::kSplitK == 1 &&
                    !Base::kStoreUnderNext && Base::kMBlocks == 1 &&
                    (!Base::kStageHalves || Base::kHalfInRing),
                "v22: v14's store on whole tiles, a part's staging never waited for by the "
                "consumers between its halves");
};

// v32's widths and choice, every width with the epilogue warps.
struct WsWidthsEpilogueWarps : WsWidthsEach<WsCfgEpilogueWarps, WsWidthsProducerTail> {};

template <int KIND>
int launch_bias_gelu_epilogue_warps(const half *A, const half *B, const half *bias, half *C,
                                    int M, int N, int K, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsEpilogueWarps, kLoopLeanOpaqueLast>(
      A, B, C, M, N, K, EpiBiasGeluSplit<KIND>{{{bias}}}, stream);
}

}  // namespace rlg
