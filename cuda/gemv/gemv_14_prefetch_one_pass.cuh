// GEMV v14 "prefetch_one_pass" (best): v13, with an L2 prefetch hint on the 32-column slabs'
// W loads (ld.global.nc.L2::256B: a slab reads 64 bytes of each row, its three neighbours the
// rest of the 256-byte block) and a one-pass end: lane l of warp w sums entry w of lane l over
// the 16 warps, its own warp's term from its registers, in v13's order (y bitwise v13's), and
// stores it; one barrier, no second pass (gemv_slab_n32's PREFETCH_ONE_PASS).
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v19; NE3, interleaved with v13 and
// the read, over the read, one launch / graph, 4096²): 2 rows 1.055 / 1.077 -> 1.041 / 1.055,
// 4 rows 1.043 / 1.062 -> 1.037 / 1.040, 8 rows 1.053 / 1.079 -> 1.032 / 1.039, 12 rows 1.080 /
// 1.110 -> 1.062 / 1.078, 16 rows 1.093 / 1.130 -> 1.058 / 1.078 (0.10-0.54 us; predicted
// 0.2-0.4 at 8..16 rows, 0.1-0.2 at 2..4). Report Y, one launch over the read at 1 / 2 / 4 / 8
// / 16 rows: 4096² 1.042 / 1.026 / 1.026 / 1.024 / 1.052, 8192² 1.036 / 1.002 / 1.003 / 1.012 /
// 1.038. 16 rows at 4096² stay 1.052-1.061x the read over the reports since (the static
// partition's tail: perf log, thirtieth session). The same hint on the 64-column slabs was
// 1.3-1.8 us slower (WH): not taken.
#pragma once
#include "gemv/gemv_13_narrow_slabs.cuh"

namespace {

using PrefetchOnePass = NarrowSlabs<true>;

}  // namespace
