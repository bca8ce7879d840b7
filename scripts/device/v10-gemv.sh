#!/usr/bin/env bash
# GEMV v10 / v11 (the lean 2..16-row slab loops, rolling and batched): the GEMV GPU tests,
# compute-sanitizer over v10's and v11's paths, then v9, v10 and v11 interleaved (cold L2, one
# launch and graph) at M = 1..16 for N = K = 4096 and 8192. Logs to $OUT; the comparison
# table is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/tests/gpu_memory_bound --ignored --test-threads=1 gemv > "$OUT/gpu-gemv.log" 2>&1
grep -E "^test |test result|FAILED|panicked" "$OUT/gpu-gemv.log" | head -20
# The sanitizer's own logs stay on the machine (the device tool returns at most 8 files).
OUT=/tmp/san SANITIZE_FILTER="variant 1[01] " SANITIZE_TIMEOUT_S=120 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
grep -h -E "ERROR SUMMARY|========= (Invalid|Race|Uninit|Barrier)" /tmp/san/*.log | sort | uniq -c | head -20 >> "$OUT/sanitize.log"
tail -8 "$OUT/sanitize.log"
{
for mode in --launch --graph; do
  for n in 4096 8192; do
    for m in 1 2 4 8 16; do
      $B/roofline bench gemv --m $m --n $n --k $n --impl ours --variant v9,v10,v11 --interleave $mode
    done
  done
done
} > "$OUT/bench.log" 2>&1
grep -E "^  gemv" "$OUT/bench.log" | cut -c1-110
