// GEMV v12 "x_units": v11, with 2..16 rows walking K in units of 32 rows where K % 32 == 0 and
// x is 16-byte aligned (gemv_slab_v10's XP): a unit is two groups, lane t takes rows 8t + 0..3
// in the first and 8t + 4..7 in the second, so its x for both is one 16-byte load; W's loads
// and the bytes in flight are v10's. At 9..16 rows the same loop replaces v8's TMA slab: each
// W fragment is the A operand of two MMAs, one per 8 rows of x (elsewhere the TMA slab stays).
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v16 and v17; interleaved with the
// step before and the read, over the read): 2..8 rows (X5) at 8192² one launch 1.036-1.055 ->
// 1.021-1.034, graph 1.045-1.057 -> 1.033-1.042 (0.24-0.77 us; predicted 0.1-0.5), at 4096²
// within -0.12..+0.07 us (there the cluster's start and exchange are the gap, C1); 9..16 rows
// (X7), one launch / graph: 4096² 12 rows 1.132 / 1.177 -> 1.097 / 1.143, 16 rows 1.125 / 1.185
// -> 1.097 / 1.146; 8192² 12 rows 1.061 / 1.076 -> 1.048 / 1.059, 16 rows 1.063 / 1.076 ->
// 1.055 / 1.074 (predicted ~1.08 and ~1.04). Report R: every 8192² point within 5% of the read.
#pragma once
#include "gemv/gemv_11_st_async.cuh"

namespace {

struct XUnits : StAsync {
  static int launch(const Rows &r) {
    if (r.K % 32 != 0 || (uintptr_t)r.x % 16 != 0 || !LeanLoop<kPushStAsync>::fits(r))
      return StAsync::launch(r);
    const bool small = bucket(r.rows) <= 8;
    if (r.plan() == kSlabMmaCluster)
      return launch_status(
          small ? launch_slab_v10<8, true, true, kPushStAsync, true, true>(r.x, r.W, r.y, r.rows,
                                                                           r.N, r.K, r.epi, r.s)
                : launch_slab_v10<16, true, true, kPushStAsync, true, true>(
                      r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s));
    return launch_status(
        small ? launch_slab_v10<8, false, true, kPull, true, true>(r.x, r.W, r.y, r.rows, r.N,
                                                                   r.K, r.epi, r.s)
              : launch_slab_v10<16, false, true, kPull, true, true>(r.x, r.W, r.y, r.rows, r.N,
                                                                    r.K, r.epi, r.s));
  }
};

}  // namespace
