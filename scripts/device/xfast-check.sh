#!/usr/bin/env bash
# GEMV v15's one-row slab in a cluster staging x first (XFAST): v14 vs v15 with the read of W
# interleaved at 1 x 4096² (one launch and graph), v20 vs v21 fused / unfused / plain at
# 1 x 4096², then every GPU test, then compute-sanitizer over v15's one-row runs. Logs to
# $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  for mode in --launch --graph; do
    $B/roofline bench gemv --m 1 --n 4096 --k 4096 --impl read,ours --variant v14,v15 \
      --interleave $mode --no-verify
  done
  $B/roofline bench gemm-gelu --m 1 --n 4096 --k 4096 --impl fused,unfused,plain \
    --variant v20,v21 --interleave --no-verify
} > "$OUT/bench.log" 2>&1
grep -E "x the time" "$OUT/bench.log"
$B/run-gpu-tests.sh > "$OUT/tests.log" 2>&1
echo "gpu tests exit=$?"
grep -E "test result|FAILED|panicked" "$OUT/tests.log" | sort | uniq -c
OUT=/tmp/san SANITIZE_FILTER="gemv --impl ours --variant 15 --m 1 " \
  SANITIZE_TIMEOUT_S=60 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
tail -7 "$OUT/sanitize.log"
