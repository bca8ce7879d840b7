#!/usr/bin/env bash
# GEMV v16 (v14's 2..8-row loop over units of two groups, one 16-byte x load per unit): v15 vs
# v16 with the read of W interleaved at M = 2, 4, 8, 4096² and 8192², one launch and graph;
# compute-sanitizer (4 tools) over v16's runs of scripts/sanitize.sh; the GEMV GPU tests.
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  for n in 4096 8192; do
    for mode in --launch --graph; do
      for m in 2 4 8; do
        $B/roofline bench gemv --m "$m" --n "$n" --k "$n" --impl read,ours --variant v15,v16 \
          --interleave $mode --no-verify
      done
    done
  done
} > "$OUT/bench.log" 2>&1
OUT=/tmp/san SANITIZE_FILTER="gemv --impl ours --variant 16 " SANITIZE_TIMEOUT_S=60 \
  bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
ROOFLINE_BIN="$PWD/$B/roofline" timeout 240 "$B/tests/gpu_memory_bound" --ignored \
  --test-threads=1 gemv > "$OUT/tests.log" 2>&1
echo "gemv gpu tests exit=$?"
grep -E "^test |test result|FAILED|panicked" "$OUT/tests.log"
tail -7 "$OUT/sanitize.log"
grep -E "x the time of a read" "$OUT/bench.log" | cut -c1-150
