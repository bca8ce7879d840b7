#!/usr/bin/env bash
# Where the fused kernel's extra ~1 us at M = 64 and ~2 us at M = 256 (N = K = 4096, graph
# timing) comes from: hot L2 (the bias and B resident: the bias's cold miss gone) and, at
# M = 64, v10's non-split kernel (64x32 tiles) beside v14's cluster split-K. Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
q="--min-time-ms 100 --max-time-ms 800 --graph"
{
for m in 64 256; do for cache in --cold --hot; do
  $B/roofline bench gemm-gelu --m $m --n 4096 --k 4096 --impl fused $cache $q
  $B/roofline bench gemm --m $m --n 4096 --k 4096 --impl wmma $cache $q
done; done
for v in 10 14; do
  $B/roofline bench gemm-gelu --m 64 --n 4096 --k 4096 --impl fused --variant $v $q
  $B/roofline bench gemm --m 64 --n 4096 --k 4096 --impl wmma --variant $v $q
done
} > "$OUT/diag.log" 2>&1
grep -E "^  (hgemm|gemm)" "$OUT/diag.log" | cut -c1-100
