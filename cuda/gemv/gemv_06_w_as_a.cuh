// GEMV v6 "w_as_a": v5, with 2..8 rows on slabs that take W as the MMA's A operand and x^T as
// B (m16n8k16's 8 columns of B are the 8 rows of x), so a group of 16 rows of K x 64 columns
// takes 4 MMAs instead of 8 and none carries zero rows of x (gemv_slab_mma's WA). Why: builds
// of v5's slab that were wrong on purpose (P6, 8192²) ran their streaming skeleton at the
// read's pace; what cost was the MMAs issued by the loading warps (8 per group, whatever M
// is) and the 16-warp reduction at the end.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v9; interleaved with v5 and the
// read, P8 / P9, over the read): 4096² M = 2 / 4 / 8 1.208 / 1.197 / 1.205 -> 1.165 / 1.151 /
// 1.151, 8192² 1.103 / 1.096 / 1.111 -> 1.075 / 1.073 / 1.081 (predicted 3-6% faster); one row
// and 16 rows run v5's kernels. In report H (each case alone): 1.10 / 1.05 / 1.04x the read at
// M = 2 / 4 / 8 (4096²), 1.10-1.12x at 8192².
#pragma once
#include "gemv/gemv_05_slabs.cuh"

namespace {

template <int PUSH>
struct WAsA : Slabs<PUSH> {
  static int launch(const Rows &r) {
    const SlabPlan plan = r.plan();
    if (bucket(r.rows) > 8 || (plan != kSlabMma && plan != kSlabMmaCluster))
      return Slabs<PUSH>::launch(r);
    return launch_status(
        plan == kSlabMma
            ? launch_slab_mma<8, false, true>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s)
            : launch_slab_mma<8, true, true, PUSH != kPull>(r.x, r.W, r.y, r.rows, r.N, r.K,
                                                             r.epi, r.s));
  }
};

}  // namespace
