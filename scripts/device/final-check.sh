#!/usr/bin/env bash
# Before a report: every GPU test of the bundle, compute-sanitizer over the TMA slab paths, and
# the dispatch bounds checked interleaved (GEMV v11 vs v12 at 8 / 9 / 16 rows; HGEMM v15 vs
# v16 at 64x8192x8192, where v16 must fall back to v15's kernels). Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
tests_and_sanitize "variant 16 |gemv --impl ours --variant 12 "
{
  for m in 8 9 16; do
    $B/roofline bench gemv --m $m --n 8192 --k 8192 --impl read,ours --variant v11,v12 --interleave
  done
  $B/roofline bench gemm --m 64 --n 8192 --k 8192 --impl wmma --variant v15,v16 --interleave
} > "$OUT/bench.log" 2>&1
grep -E "x the time|^  hgemm" "$OUT/bench.log" | cut -c1-110
