// LayerNorm v6 "pdl" (best): v4 launched with programmatic dependent launch (sm_90; ln_two_rows'
// PDL): each block lets the next kernel in the stream launch as soon as it starts, and waits
// for the previous kernel to finish (griddepcontrol.wait) before its first global access. Back
// to back, the next launch's blocks are already resident, waiting, while this one drains; the
// results and their ordering are exactly v4's. Below compute capability 9.0, v4.
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; L1, interleaved with v4): 4096x4096 graph
// 19.4 -> 18.3 us (84% -> 88% of the copy ceiling), one launch 25.0 -> 24.0 us; 32768x4096 131
// -> 130 us. Reports D / E / E2: 88.9% / 88.0% / 88.7% at 4096x4096 in graph timing.
#pragma once
#include "layernorm/layernorm_4_two_rows.cuh"

namespace rln {

// PDL where the device has it, else v4's launch; v2 where the shape does not fit.
inline int layernorm_v6(const __half *x, const __half *g, const __half *b, __half *y, int rows,
                        int hidden, float eps, cudaStream_t s) {
  cudaError_t err = cudaSuccess;
  const bool done = rl_cc9_or_newer()
                        ? launch_two_rows<false, true>(x, g, b, y, rows, hidden, eps, s, &err)
                        : launch_two_rows<false, false>(x, g, b, y, rows, hidden, eps, s, &err);
  if (done) return two_rows_status(err);
  return layernorm_v2(x, g, b, y, rows, hidden, eps, s);
}

}  // namespace rln
