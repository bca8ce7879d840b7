// GEMV v8 "tma_slabs": v7, with 9..16 rows on the TMA slabs where they apply (sm_90, N and K
// multiples of 8, 16-byte aligned x and W; gemv_slab_tma): per stage W's 128 x 64 tile and x's
// 16 x 128 tile come into a 4-stage ring of shared memory through cp.async.bulk.tensor
// (mbarriers, 128-byte swizzle; 8 warps, thread 0 refills), so the bytes in flight no longer
// depend on registers and scoreboards. 2..8 rows keep v7's W-as-A groups (half the MMAs).
// The same kernel, with up to 4 m-tiles of 16 rows, is HGEMM v8's at 9..64 rows.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v12; T2 / T3, interleaved with v7
// and the read, over the read): 16 rows at 8192² 1.136 -> 1.074 (41.0 -> 38.8 us; graph 1.158
// -> 1.087), at 4096² 1.234 -> 1.185; 9 rows 1.107 -> 1.075; at 2..8 rows the TMA form was
// 1-3% slower than v7 (hence 9..16 rows only). Predicted: 16 rows within 2-3% of the read at
// 8192², from the probe T1, whose bare TMA stream later proved ~1.04x the product's read.
#pragma once
#include "gemv/gemv_07_lean_loop.cuh"

namespace {

template <int PUSH>
struct TmaSlabs : LeanLoop<PUSH> {
  static int launch(const Rows &r) {
    if (r.rows >= kTmaMinRows) {
      bool launched = false;
      const int st = tma_slab_launch<PUSH, false>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi,
                                                  LLONG_MAX, r.s, &launched);
      if (launched) return st;
    }
    return LeanLoop<PUSH>::launch(r);
  }
  static void setup() {
    LeanLoop<PUSH>::setup();
    if (tma_capable()) (void)tma_max_clusters<1>();  // smem attributes, cluster query
  }
};

}  // namespace
