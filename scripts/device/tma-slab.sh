#!/usr/bin/env bash
# The TMA slabs (GEMV v12 for 2..16 rows, HGEMM v16 for 2..64): the HGEMM / GEMM+GELU and GEMV
# GPU tests, compute-sanitizer over the TMA paths, then interleaved timings (cold L2): v15 vs
# v16 with cuBLAS at M = 2..64 for N = K = 4096 and 8192 (one launch), the fusion trio at M = 16
# and 64, and GEMV v11 vs v12 with the read of W at M = 2..16 (one launch and graph).
# Logs to $OUT; the comparison lines are printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/tests/gpu_gemm --ignored --test-threads=1 > "$OUT/gpu-gemm.log" 2>&1
$B/tests/gpu_memory_bound --ignored --test-threads=1 gemv > "$OUT/gpu-gemv.log" 2>&1
grep -h -E "^test |test result|FAILED|panicked" "$OUT/gpu-gemm.log" "$OUT/gpu-gemv.log" | head -20
OUT=/tmp/san SANITIZE_FILTER="variant 16 |gemv --impl ours --variant 12 " SANITIZE_TIMEOUT_S=120 \
  bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
grep -h -E "ERROR SUMMARY|========= (Invalid|Race|Uninit|Barrier)" /tmp/san/*.log | sort | uniq -c | head -20 >> "$OUT/sanitize.log"
tail -9 "$OUT/sanitize.log"
{
for n in 4096 8192; do
  for m in 2 8 16 17 32 48 64; do
    $B/roofline bench gemm --m $m --n $n --k $n --impl wmma,cublas --variant v15,v16 --interleave
  done
done
for m in 16 64; do
  $B/roofline bench gemm-gelu --m $m --n 4096 --k 4096 --impl fused,unfused --variant v15,v16 --interleave
done
for mode in --launch --graph; do
  for n in 4096 8192; do
    for m in 2 4 8 16; do
      $B/roofline bench gemv --m $m --n $n --k $n --impl read,ours --variant v11,v12 --interleave $mode
    done
  done
done
} > "$OUT/bench.log" 2>&1
grep -E "x the speed|x the time" "$OUT/bench.log"
