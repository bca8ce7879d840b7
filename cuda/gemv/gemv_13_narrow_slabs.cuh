// GEMV v13 "narrow_slabs": v12, with 2..16 rows on 32-column slabs over all of K and no
// cluster where v12 runs its (1, 2) clusters (N / 64 slabs between a quarter and a half of the
// SMs: N = 4096 on the H200), K % 64 == 0 and x 16-byte aligned (gemv_slab_n32): N / 32 CTAs
// of 16 warps, a lane's 8-byte loads (4 columns) of 16 rows per 64-row unit, the bytes in
// flight v12's. No exchange at the end, half the sums per lane, and only the rows below M
// summed. The probe gemv_xp_parts.cu had put v12's whole 4096² gap in its end: the walk alone
// ran at the read's pace, the cluster's start, exchange and reduction took 1.0 us at 2..8 rows
// and 1.5 at 16.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v18; X8, interleaved with v12 and
// the read, over the read, one launch / graph, 4096²): 2 rows 1.069 / 1.098 -> 1.054 / 1.082,
// 4 rows 1.070 / 1.102 -> 1.056 / 1.069, 8 rows 1.070 / 1.098 -> 1.066 / 1.077, 12 rows 1.106 /
// 1.161 -> 1.083 / 1.115, 16 rows 1.099 / 1.149 -> 1.097 / 1.129 (predicted 0.3-0.4 us off at
// 2..8 rows, 0.2 at 16: at 16 rows x's doubled loads take back most of the end's gain). Report
// S: 2..8 rows at 4096² within 5% of the read for the first time (1.046-1.048).
#pragma once
#include "gemv/gemv_12_x_units.cuh"

namespace {

// PREFETCH_ONE_PASS: v14's form of the kernel.
template <bool PREFETCH_ONE_PASS>
struct NarrowSlabs : XUnits {
  static int launch(const Rows &r) {
    if (r.plan() != kSlabMmaCluster || r.rows < 2 || r.K % kN32UnitK != 0 ||
        (uintptr_t)r.x % 16 != 0)
      return XUnits::launch(r);
    const unsigned grid = (unsigned)rl_ceil_div(r.N, kN32Cols);
    const auto kernel = bucket(r.rows) <= 8 ? gemv_slab_n32<8, PREFETCH_ONE_PASS>
                                            : gemv_slab_n32<16, PREFETCH_ONE_PASS>;
    kernel<<<grid, kSlabThreads, 0, r.s>>>(r.x, r.W, r.y, r.rows, r.N, r.K);
    return rl_launch_status();
  }
};

}  // namespace
