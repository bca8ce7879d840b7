// HGEMM v24 "epilogue_under_next": v23, with each tile's epilogue (the functor, the stmatrix
// into the staging, the TMA store) run under the next tile's first two k-tiles of wgmmas
// instead of before them. After its tile's last wgmma a consumer warpgroup rounds its results
// to fp16 / bf16 two to a register (64 registers at the 256-wide tile beside the 128
// accumulators: the consumers' 232 hold both), zeroes its accumulators, issues the next tile's
// first two k-tiles and only then stores the packed results (ws_store_under_next.cuh). The
// 256-wide tile stages its halves in its own 32 KB again (v18's staging: the wait between the
// halves now runs under the wgmmas too, so v21's half in the ring is not needed).
//
// Why: in v14-v23's cooperative tile both consumer warpgroups finish their wgmmas together and
// then both run the epilogue, so the tensor cores wait for it once a tile. For the plain GEMM
// that is the stmatrix and the store's hand-off (~1 k cycles a tile at 4096³, S41a); for
// GEMM+bias+GELU the SFU's tanh on top (a 128x256 tile's 32768 MUFU.TANH at 16 a clock: ~2 k
// cycles, "The fused epilogue's SFU floor" in the perf log), which keeps fused / plain at
// 1.03-1.04 at 4096³ against the target's 1.02. Two k-tiles of both warpgroups' wgmmas are
// ~2 k tensor-core cycles at the 256-wide tile, as long as the fused epilogue.
//
// Cost: the functor sees A.B rounded to T once (ws_store_under_next.cuh: at most ~1 ulp more
// error in the fused forms; the plain GEMM's bits are v23's); the k-loop is not unrolled (the
// store's check); the ring gives the next tile's first stage back one k-tile later.
//
// Prediction (before a GPU run): plain +0.5-1% at 4096³ (the store's ~1 k cycles a tile out of
// ~66 k), less at 8192³; fused +2-3% at 4096³ and 8192³, fused / plain from 1.03-1.04 to ~1.01;
// 2048³ (one tile per CTA) unchanged: nothing follows the only tile.
// Measured (S43e, an H100, one process per shape, v23 / v24 / cuBLAS interleaved; µs): 4096³
// 181.7 / 184.1 / 180.3 and 181.1 / 182.7 / 180.2 (-0.9 / -1.3%), 8192³ 1424.7 / 1422.3 (+0.2%),
// 2048³ 29.5 / 29.3 (+0.7%), 1024x14336x4096 173.2 / 177.5 (-2.5%), bf16 4096³ 176.3 / 176.9
// (-0.3%). Nsight Compute at 4096³ (caches flushed, 1.56 GHz under the cap): v23 290.2 k cycles,
// the tensor pipe active 93.6% of them; v24 290.8 k, 93.5%: nothing the tensor cores waited for
// came back, and the loop lost its unroll (18.7 M -> 21.9 M instructions). Correct (every
// gpu_gemm test, the sanitizer's v24 lines, check --random 100 in fp16 and bf16). Not best: the
// perf log's v24 section says why and what is left.
#pragma once
#include "gemm/hgemm_23_n64_mid_m.cuh"

namespace rlg {

// Base's configuration with v24's store under the next tile.
template <class Base>
struct WsCfgUnderNext : Base {
  static constexpr bool kStoreUnderNext = true;
  static_assert(Base::kTmaStore && !Base::kStreamK && !Base::kPingpong && !Base::kHalfInRing &&
                    Base::kMBlocks == 1,
                "v24: v14's store of one m64 block per warpgroup, whole tiles, v16's staging");
};

// v23's widths and choice; the 256-wide tile with v18's halves (its own staging).
struct WsWidthsUnderNext : WsWidthsEach<WsCfgUnderNext, WsWidthsN64MidM> {
  using N256 = WsCfgUnderNext<WsCfgLeanDesc<WsWidths<true, false, true>::N256>>;
};

template <int LOOP, class Epi>
int launch_ws_epilogue_under_next(const half *A, const half *B, half *C, int M, int N, int K,
                                  const Epi &epi, cudaStream_t stream) {
  return launch_ws_widths<WsWidthsUnderNext, LOOP>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
