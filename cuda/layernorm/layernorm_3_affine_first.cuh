// LayerNorm v3 "affine_first": v2 with gamma and beta fetched right after the row, before the
// statistics, where a thread owns at most 4 vectors (hidden <= 4096; ln_reg's PRE): their L2
// latency then overlaps the row's HBM latency instead of following the two reductions. Above
// that, v2 (the extra registers would spill).
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; V): 4096x4096 in graph timing 3425 GB/s =
// 83.0% (v2 83.4%), 32768x4096 90.0% (v2 94.1%); the harness (P2) had measured 86.4% against
// v2's 81.6% with the same kernel: what differs was not found. Kept as a measured step.
#pragma once
#include "layernorm/layernorm_2_registers.cuh"

namespace rln {

constexpr auto layernorm_v3 = layernorm_registers<true>;

}  // namespace rln
