#!/usr/bin/env bash
# GEMV v17 (v16's unit loop at 9..16 rows) and the slab kernels' K split by a shift instead of
# a 64-bit division:
# - v16 vs v17 with the read of W interleaved at M = 12, 16, 4096² and 8192², one launch and
#   graph (9..16 rows: v16's TMA slab against v17's register loop);
# - the split: this tree's v16 against the previous tree's (bundle/old/roofline, carried in the
#   bundle) at M = 1, 2, 8, 4096², one launch, alternating processes, twice each;
# - compute-sanitizer (4 tools) over v17's runs of scripts/sanitize.sh; the GPU tests of
#   gpu_memory_bound (the GEMV's among them). (X7 ran this with the GEMV tests alone.)
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  for n in 4096 8192; do
    for mode in --launch --graph; do
      for m in 12 16; do
        $B/roofline bench gemv --m "$m" --n "$n" --k "$n" --impl read,ours --variant v16,v17 \
          --interleave $mode --no-verify
      done
    done
  done
} > "$OUT/bench.log" 2>&1
{
  for rep in 1 2; do
    for bin in $B/old/roofline $B/roofline; do
      for m in 1 2 8; do
        echo "== $bin rep $rep m $m"
        $bin bench gemv --m "$m" --n 4096 --k 4096 --impl read,ours --variant v16 \
          --interleave --launch --no-verify
      done
    done
  done
} > "$OUT/split.log" 2>&1
tests_and_sanitize "gemv --impl ours --variant 17 " gpu_memory_bound
grep -E "^== |x the time of a read" "$OUT/split.log" | cut -c1-150
grep -E "x the time of a read" "$OUT/bench.log" | cut -c1-150
