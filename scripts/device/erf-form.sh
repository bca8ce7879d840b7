#!/usr/bin/env bash
# GEMM+GELU v20 (the parked epilogue as a loop; the erf form's GELU as a logistic polynomial,
# ex2 + rcp): the HGEMM and GEMM+GELU GPU tests (every variant), compute-sanitizer over v20's
# runs, then v19 vs v20 interleaved, fused / unfused / plain, with both GELU forms at one-wave
# and multi-wave shapes and the mid-M split. Logs to $OUT; the comparison is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
tests_and_sanitize "variant 20 " gpu_gemm
{
  for g in erf tanh; do
    for s in "--m 2048 --n 2048 --k 2048" "--m 1024 --n 4096 --k 4096" \
      "--m 4096 --n 4096 --k 4096" "--m 256 --n 4096 --k 4096"; do
      $B/roofline bench gemm-gelu $s --gelu $g --impl fused,unfused,plain --variant v19,v20 \
        --interleave --no-verify --warmup-ms 500 --min-time-ms 500
    done
  done
} > "$OUT/bench.log" 2>&1
grep -E "^  (hgemm|gemm_bias_gelu[a-z_]*) (ours|unfused)|x the time of" "$OUT/bench.log" | cut -c1-110
