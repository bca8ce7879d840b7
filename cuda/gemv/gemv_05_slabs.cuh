// GEMV v5 "slabs": v4, with one 512-thread block per 64-column slab of W streaming all of K
// (double-buffered register loads) wherever such a grid fills between half and all of the SMs
// (one block per SM); where the slabs alone would fill less than half of them, a (1, 2) cluster
// splits K and its two CTAs sum over DSMEM (slab_plan). So no split-K tail goes through global
// memory. One row: FMA, x staged in shared memory after W's first loads are
// issued (gemv_slab1); 2..16 rows: v4's tensor-core groups (gemv_slab_mma). Elsewhere v4's
// kernels. PUSH: the clusters' exchange (kPull here; v9 and v11 change it).
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV, old v8): the probe P1 put v3's split-K
// tail at ~2-3 us (19.52 us with it, 16.35 without, at 1 x 4096²). Report G (µs): 16.7 at 1 x
// 4096², 19.5 at 16 x 4096², 37.5 at 1 x 8192² (graph 32.9: 99.0% of the copy rate; v4 92.8%),
// the read 16.1 / 36.0: one row 1.04x the read at both sizes (predicted within 3-5%), 2..16
// rows 1.13-1.21x (4096²) and 1.12-1.19x (8192²), faster than cuBLAS at every M <= 16.
#pragma once
#include "gemv/gemv_04_tensor_cores.cuh"

namespace {

template <int PUSH>
struct Slabs : TensorCores {
  static int launch(const Rows &r) {
    const bool small = bucket(r.rows) <= 8;
    switch (r.plan()) {
      case kSlabNone:
        return TensorCores::launch(r);
      case kSlab1x64:
      case kSlab1x64Cluster:
        return launch_status(launch_slab1<PUSH>(r.x, r.W, r.y, r.N, r.K,
                                                r.plan() == kSlab1x64Cluster, r.epi, r.s));
      case kSlabMma:
        return launch_status(
            small ? launch_slab_mma<8, false>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s)
                  : launch_slab_mma<16, false>(r.x, r.W, r.y, r.rows, r.N, r.K, r.epi, r.s));
      default:  // kSlabMmaCluster
        return launch_status(
            small ? launch_slab_mma<8, true, false, PUSH != kPull>(r.x, r.W, r.y, r.rows, r.N,
                                                                    r.K, r.epi, r.s)
                  : launch_slab_mma<16, true, false, PUSH != kPull>(r.x, r.W, r.y, r.rows, r.N,
                                                                     r.K, r.epi, r.s));
    }
  }
  static int splits(int rows, int N, int K) {
    return slab_plan(rows, N, K) == kSlabNone ? TensorCores::splits(rows, N, K) : 1;
  }
  static void setup() { slab_setup(); }
};

}  // namespace
