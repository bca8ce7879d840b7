// GEMV v11 "st_async": v10, with the (1, 2) clusters' partial sums sent by st.async onto a
// barrier in the peer's shared memory (mbarrier::complete_tx), each rank waiting on its own:
// the sums travel one way, where v9's cluster barrier waited for the stores' acknowledgement
// and then signalled (slab_store_tile's PUSH 2; the same sums in the same order). The one-row
// slab in a cluster with 16-byte x also stages x before W's first loads, and its lanes past N
// load column N - 8 instead of a guarded zero (gemv_slab1's XFAST). These are the forms the
// GEMM family's slabs run (gemv_slabs_api.cuh).
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v15; C4, interleaved with v10 and
// the read, over the read, one launch): 4096² M = 1 / 2 / 4 / 8 / 16 1.079 / 1.093 / 1.096 /
// 1.097 / 1.152 -> 1.070 / 1.077 / 1.084 / 1.084 / 1.136 (predicted 0.2-0.5 us off); 8192²
// unchanged (no cluster). XFAST (C7, one row at 4096²): 16.38 -> 15.62 us, 1.092 -> 1.041x the
// read (graph 1.103 -> 1.033), more than the ~0.4 us predicted from the probe (D3).
#pragma once
#include "gemv/gemv_10_issue_first.cuh"

namespace {

using StAsync = IssueFirst<kPushStAsync>;

}  // namespace
