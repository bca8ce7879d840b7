// GEMV v7 "lean_loop": v6, with 2..16 rows on a lean main loop where K % 16 == 0 and x is
// 8-byte aligned (gemv_slab_v10 with BATCH): no guarded loads (a lane past N loads column
// N - 8, past M row M - 1 of x; their sums are never stored), four row pointers stepped by a
// constant, a rolling ring of 4 groups in flight (3 at 16 rows): ~35 SASS instructions per
// group of 16 rows instead of v6's ~90. Where a warp has at least 4 batches of groups (8192²),
// the ring is issued and multiplied in batches: ptxas puts all of a warp's W loads on one
// scoreboard, so a rolling wait also waits for the groups issued after it.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v10 and v11; interleaved with v6,
// µs): the lean loop (G1 / G3) at 4096² 2 rows 17.7 -> 17.2, 16 rows 19.7 -> 18.7 (2..8 rows
// at one row's time, as predicted), at 8192² nothing (40.1 -> 40.1; 43.9 -> 43.7); the batches
// (G3) at 8192² 2 rows 40.0 -> 39.2, 16 rows 43.4 -> 41.2, and 1-3% slower at 4096² (hence
// only from 4 batches per warp). Report F2: 1.03-1.11x the read at 4096², 1.02-1.12x at 8192².
#pragma once
#include "gemv/gemv_06_w_as_a.cuh"

namespace {

template <int PUSH>
struct LeanLoop : WAsA<PUSH> {
  // Whether the lean loop's kernels (and the forms of it that v10 and v12 add) take this
  // launch: 2..16 rows, K whole groups of 16, x 8-byte aligned, a tensor-core slab plan whose
  // clusters, if any, are all resident at once.
  static bool fits(const Rows &r) {
    if (r.rows < 2 || r.K % 16 != 0 || (uintptr_t)r.x % 8 != 0) return false;
    const SlabPlan plan = r.plan();
    return plan == kSlabMma ||
           (plan == kSlabMmaCluster && lean_max_clusters(bucket(r.rows) <= 8) >= tiles_for(r.N));
  }
  static int launch(const Rows &r) {
    if (!fits(r)) return WAsA<PUSH>::launch(r);
    const bool small = bucket(r.rows) <= 8;
    if (r.plan() == kSlabMmaCluster)
      return launch_status(
          small ? launch_slab_v10<8, true, true, PUSH>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s)
                : launch_slab_v10<16, true, true, PUSH>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi,
                                                        r.s));
    return launch_status(
        small ? launch_slab_v10<8, false, true>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s)
              : launch_slab_v10<16, false, true>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s));
  }
  static void setup() {
    WAsA<PUSH>::setup();
    (void)lean_max_clusters(true);  // the cluster residency queries now, not in a capture
    (void)lean_max_clusters(false);
  }
};

}  // namespace
