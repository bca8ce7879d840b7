#!/usr/bin/env bash
# HGEMM v16 (wide GEMV slabs for 17..64 rows): the HGEMM / GEMM+GELU GPU tests,
# compute-sanitizer over v16's paths, then v15 vs v16 interleaved (cold L2, one launch) at
# M = 17..64 for N = K = 4096 and 8192 with cuBLAS beside, and the fusion trio at M = 32 / 64.
# Logs to $OUT; the comparison table is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/tests/gpu_gemm --ignored --test-threads=1 > "$OUT/gpu-gemm.log" 2>&1
grep -E "^test |test result|FAILED|panicked" "$OUT/gpu-gemm.log" | head -20
OUT=/tmp/san SANITIZE_FILTER="variant 16 " SANITIZE_TIMEOUT_S=120 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
grep -h -E "ERROR SUMMARY|========= (Invalid|Race|Uninit|Barrier)" /tmp/san/*.log | sort | uniq -c | head -20 >> "$OUT/sanitize.log"
tail -8 "$OUT/sanitize.log"
{
for n in 4096 8192; do
  for m in 17 32 48 64; do
    $B/roofline bench gemm --m $m --n $n --k $n --impl wmma,cublas --variant v15,v16 --interleave
  done
done
for m in 32 64; do
  $B/roofline bench gemm-gelu --m $m --n 4096 --k 4096 --impl fused,unfused --variant v15,v16 --interleave
done
} > "$OUT/bench.log" 2>&1
grep -E "^  (hgemm|gemm|cublas)" "$OUT/bench.log" | cut -c1-120
grep -E "x the speed" "$OUT/bench.log"
