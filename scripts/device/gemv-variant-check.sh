#!/usr/bin/env bash
# A GEMV change at the 32-column slabs' shapes: `gemv-variant-check.sh OLD NEW`
# - vOLD vs vNEW with the read of W interleaved at M = 2, 4, 8, 12, 16, 4096², one launch and
#   graph; and at M = 8, 2560² (another cluster-form N: 40 slabs of 64 columns);
# - compute-sanitizer (4 tools) over vNEW's runs of scripts/sanitize.sh; the GPU tests of
#   gpu_memory_bound (the GEMV's among them).
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
old=${1:?usage: gemv-variant-check.sh OLD NEW} new=${2:?usage: gemv-variant-check.sh OLD NEW}
{
  for mode in --launch --graph; do
    for m in 2 4 8 12 16; do
      $B/roofline bench gemv --m "$m" --n 4096 --k 4096 --impl read,ours \
        --variant "v$old,v$new" --interleave $mode --no-verify
    done
    $B/roofline bench gemv --m 8 --n 2560 --k 2560 --impl read,ours --variant "v$old,v$new" \
      --interleave $mode --no-verify
  done
} > "$OUT/bench.log" 2>&1
tests_and_sanitize "gemv --impl ours --variant $new " gpu_memory_bound
grep -E "x the time of a read" "$OUT/bench.log" | cut -c1-150
