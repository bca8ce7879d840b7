// GEMV v10 "issue_first": v9, with 2..8 rows in the one-row slab's loop order: v7's 2..8-row
// kernel with two groups in flight, the next group issued before the current one is multiplied
// (load B, multiply A, load A, multiply B; gemv_slab_v10's TOP). v7's rolling ring and batches
// multiply, then issue; the one-row slab streams at the read's pace only in its own order (the
// rotated one measured 4-8% slower, Y1). In the SASS each group's loads now get scoreboards of
// their own, and each multiply waits only for its group. In a cluster with a pushing exchange
// only (v9's or v11's), as it was measured.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v14; Z1, interleaved with v9 and the
// read, over the read, graph / one launch): 8192² M = 2 / 4 / 8 1.087 / 1.090 / 1.109 -> 1.044 /
// 1.054 / 1.068 (graph), 1.067 / 1.069 / 1.065 -> 1.040 / 1.044 / 1.046 (one launch); 4096²
// 1.155 / 1.162 / 1.163 -> 1.116 / 1.130 / 1.133 (graph). Predicted ~1.05 and ~1.10 (graph).
// The same loop at 9..16 rows (Z2) was slower than the TMA slabs at 8192²: not taken.
#pragma once
#include "gemv/gemv_09_cluster_push.cuh"

namespace {

template <int PUSH>
struct IssueFirst : TmaSlabs<PUSH> {
  static_assert(PUSH != kPull, "measured with the pushing clusters only");
  static int launch(const Rows &r) {
    if (bucket(r.rows) > 8 || !LeanLoop<PUSH>::fits(r)) return TmaSlabs<PUSH>::launch(r);
    return launch_status(
        r.plan() == kSlabMmaCluster
            ? launch_slab_v10<8, true, true, PUSH, true>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi,
                                                         r.s)
            : launch_slab_v10<8, false, true, kPull, true>(r.x, r.W, r.y, r.rows, r.N, r.K,
                                                           r.epi, r.s));
  }
};

}  // namespace
