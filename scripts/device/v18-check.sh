#!/usr/bin/env bash
# GEMV v18 (32-column slabs without the cluster where v17 runs clusters):
# - v17 vs v18 with the read of W interleaved at M = 2, 4, 8, 12, 16, 4096², one launch and
#   graph; and at M = 8, 2560² (another cluster-form N: 40 slabs of 64 columns);
# - compute-sanitizer (4 tools) over v18's runs of scripts/sanitize.sh; the GPU tests of
#   gpu_memory_bound (the GEMV's among them).
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  for mode in --launch --graph; do
    for m in 2 4 8 12 16; do
      $B/roofline bench gemv --m "$m" --n 4096 --k 4096 --impl read,ours --variant v17,v18 \
        --interleave $mode --no-verify
    done
    $B/roofline bench gemv --m 8 --n 2560 --k 2560 --impl read,ours --variant v17,v18 \
      --interleave $mode --no-verify
  done
} > "$OUT/bench.log" 2>&1
tests_and_sanitize "gemv --impl ours --variant 18 " gpu_memory_bound
grep -E "x the time of a read" "$OUT/bench.log" | cut -c1-150
