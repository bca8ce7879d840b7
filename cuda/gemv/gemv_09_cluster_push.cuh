// GEMV v9 "cluster_push": v8, with the (1, 2) clusters (N = 4096 on the H200) pushing their
// partial sums: each rank writes the half of its sums that the peer stores into the peer's
// shared memory, then one cluster barrier, instead of a barrier, DSMEM reads and a second
// barrier (slab_store_tile's PUSH 1, in every slab kernel that runs in a cluster: the one-row
// slab, v6's and v7's slabs, the TMA slab). The same sums in the same order: y bitwise v8's.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v13; C1 put v8's cluster reduction
// at ~0.6 us (graph) / ~0.8 us (one launch) of the 4096² gap; P1, interleaved with v8 and the
// read, 4096², over the read): one launch M = 1 / 2 / 8 / 16 1.117 / 1.150 / 1.167 / 1.184 ->
// 1.077 / 1.113 / 1.116 / 1.150, graph 1.147 / 1.202 / 1.215 / 1.266 -> 1.104 / 1.164 / 1.164 /
// 1.236 (predicted 0.2-0.8 us off); nothing at 8192², where no cluster runs.
#pragma once
#include "gemv/gemv_08_tma_slabs.cuh"

namespace {

using ClusterPush = TmaSlabs<kPushStores>;

}  // namespace
