#!/usr/bin/env bash
# GEMV v13 / HGEMM v17 (the slab clusters push their partial sums): every GPU test of the
# bundle, compute-sanitizer over the pushing paths, then v12 vs v13 and v16 vs v17
# interleaved where the slabs run in clusters (N = 4096: 64 slabs), with the read of W beside
# the GEMVs. Logs to $OUT; the comparison is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
tests_and_sanitize "variant 1[37] "
{
  for mode in --launch --graph; do
    for m in 1 2 8 16; do
      $B/roofline bench gemv --m $m --n 4096 --k 4096 --impl read,ours --variant v12,v13 --interleave $mode
    done
  done
  for m in 32 64; do
    $B/roofline bench gemm --m $m --n 4096 --k 4096 --impl wmma --variant v16,v17 --interleave
  done
  $B/roofline bench gemm-gelu --m 64 --n 4096 --k 4096 --impl fused,unfused --variant v16,v17 --interleave
  $B/roofline bench gemv --m 16 --n 8192 --k 8192 --impl read,ours --variant v12,v13 --interleave
} > "$OUT/bench.log" 2>&1
grep -E "x the time|^  hgemm|^  gemm_bias" "$OUT/bench.log" | cut -c1-110
