#!/usr/bin/env bash
# HGEMM / GEMM+GELU v18 (2..8 rows on GEMV v14's issue-first slab loop): the HGEMM and
# GEMM+GELU GPU tests (every variant), compute-sanitizer over v18's runs, then v17 vs v18
# interleaved, plain and fused, at 4 and 8 rows (4096^2: a (1, 2) cluster per slab; 8192^2:
# one CTA per slab). Logs to $OUT; the comparison is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
ROOFLINE_BIN="$PWD/$B/roofline" $B/tests/gpu_gemm --ignored --test-threads=1 > "$OUT/tests.log" 2>&1
echo "gpu_gemm exit=$?"
grep -E "test result|FAILED|panicked" "$OUT/tests.log"
OUT=/tmp/san SANITIZE_FILTER="--variant 18 " SANITIZE_TIMEOUT_S=60 \
  bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
tail -5 "$OUT/sanitize.log"
{
  for s in "--m 4 --n 4096 --k 4096" "--m 8 --n 4096 --k 4096" "--m 4 --n 8192 --k 8192"; do
    $B/roofline bench gemm-gelu $s --impl fused,plain --variant v17,v18 --interleave
  done
} > "$OUT/bench.log" 2>&1
grep -E "^  (hgemm|gemm_bias_gelu) ours" "$OUT/bench.log" | cut -c1-100
