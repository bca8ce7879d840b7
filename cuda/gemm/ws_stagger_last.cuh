// The warp-specialized kernel's staggered last tile (GEMM+bias+GELU v25,
// gemm_bias_gelu_25_staggered_last.cuh): on a CTA's last tile, consumer warpgroup 1 starts
// its k-loop only once warpgroup 0 has finished kStaggerLast k-tiles of it (a named barrier:
// 0 arrives, 1 syncs), and each warpgroup applies the functor to its accumulators in
// registers before it waits for anything of the store (its staging, the other warpgroup's
// last wgmmas on the held stage). So warpgroup 0 reaches its functor kStaggerLast k-tiles
// early and its SFU work runs while warpgroup 1's last k-tiles keep the tensor cores busy;
// only warpgroup 1's functor is left with nothing beside it.
//
// What the design assumes, and S49b's measurement speaks against: that one warpgroup's
// m64nNk16 wgmmas, one k-tile in flight behind the one it waits for, keep all four SM
// sub-partitions' tensor cores busy, so the k-tiles either warpgroup runs alone (warpgroup 0's
// first two, warpgroup 1's last two) take no longer than with both running. Measured, the last
// tile took ~1.3 µs longer (docs/perf-log.md, fused v25), as if a warpgroup alone ran well
// below the pair's rate.
//
// Why no deadlock: before warpgroup 1 starts, warpgroup 0 needs kStaggerLast + 1 stages filled
// whose previous rounds both warpgroups released. Warpgroup 1 holds back at most one stage
// (the held half of its previous tile, released in its next k-loop: v21), so a ring of
// kStaggerLast + 2 stages or more always has them (WsCfgStaggeredLast asserts it). Every
// other k-tile needs only releases warpgroup 1 makes once it runs.
#pragma once
#include "gemm/elem.cuh"
#include "gemm/ws_col_operand_early.cuh"
#include "gemm/ws_staged_operand.cuh"

namespace rlg {

// Named barrier 9 (1-8: ws_store_tma.cuh's and ws_epilogue_warps.cuh's): warpgroup 0's 128
// threads arrive, warpgroup 1's sync.
constexpr int kStaggerBar = 9, kStaggerThreads = 256;

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A consumer warpgroup's 64 x BN accumulators (the m64nBN layout: d[4g + q] at row 16 warp +
// lane / 4 + 8 (q / 2), column 8g + 2 (lane % 4) + (q % 2)) through the functor in place, its
// column operand from col_ops (loaded at the tile's start); the store then runs EpiIdentity.
// The same apply1 on the same fp32 values as ws_store_tma's (the GPU tests hold the results to
// the references, not bit for bit to v23's).
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_apply_in_registers(float (&d)[Cfg::kAcc],
                                                      const unsigned *col_ops, const Epi &epi,
                                                      int row0, int col0) {
  static_assert(ColOperandEarly<Epi>::value && !Epi::kElemOperand && !StagesOperand<Epi>::value,
                "v25: a functor whose only operand is the column operand, in registers");
  const int lane = threadIdx.x % 32, r_lo = 16 * ((threadIdx.x % 128) / 32) + lane / 4;
#pragma unroll
  for (int g = 0; g < Cfg::BN / 8; ++g) {
    const unsigned raw = col_ops[g];
    const float2 b = Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&raw));
    const float op0 = epi.prep(b.x), op1 = epi.prep(b.y);
    const int col = col0 + 8 * g + 2 * (lane % 4);
#pragma unroll
    for (int q = 0; q < 4; ++q)
      d[4 * g + q] =
          epi.apply1(d[4 * g + q], q % 2 ? op1 : op0, row0 + r_lo + 8 * (q / 2), col + q % 2);
  }
}
#endif

}  // namespace rlg
