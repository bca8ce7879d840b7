// LayerNorm v5 "two_pass": v4's two rows per block with v2's exact two-pass statistics (the
// mean, then the squared deviations from the registers: two exchanges; ln_two_rows'
// TWO_PASS).
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; ff95522): 4096x4096 in graph timing 19.7
// us = 82.6% against v2's 83.4% and v4's 84.5% in the same run (predicted between them); all
// three 95.0% at 32768x4096. The second exchange costs more than the two rows in flight gain.
#pragma once
#include "layernorm/layernorm_4_two_rows.cuh"

namespace rln {

constexpr auto layernorm_v5 = layernorm_two_rows<true>;

}  // namespace rln
