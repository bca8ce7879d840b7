// GEMV v3 "split_k": v2, with K also split across blocks, as many splits per 64-column tile as
// keep every block in one resident wave (at least 4 quads of K per warp, at most 32 splits).
// Each split writes its partial sums to the workspace; the last block of a tile to arrive (an
// atomic ticket) adds them up in a fixed order, writes y and leaves the workspace zeroed.
//
// Measured on the H200 (docs/perf-log.md, Decode GEMV table, R3; µs): 17.0 at 1 x 4096² (v2:
// 25.6), 66.0 at 16 x 4096² (123.1), 39.8 at 1 x 8192² (49.0; graph 35.3 against the read's
// 31.6). Predicted: one row within 10-15% of the read; it came to 1.08x at both sizes. 16 rows
// stay FMA-bound. The split-K tail itself (partials, fence, ticket, the last block's sum) was
// later timed at ~2-3 us (P1), which the slabs (v5) remove.
#pragma once
#include "gemv/gemv_02_vector_loads.cuh"

namespace {

struct SplitK : VectorLoads {
  static int launch(const Rows &r) {
    if (!vector_ok(r.W, r.N)) return VectorLoads::launch(r);
    return launch_fma_rows(r, fma_splits(bucket(r.rows), r.N, r.K));
  }
  static int splits(int rows, int N, int K) { return fma_splits(bucket(rows), N, K); }
};

}  // namespace
