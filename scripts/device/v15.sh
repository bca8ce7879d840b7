#!/usr/bin/env bash
# HGEMM / GEMM+GELU v15 (the 128x128 tile of 8 warps split 2 ways at mid M) and LayerNorm v6
# (PDL): the HGEMM GPU tests, compute-sanitizer over the new paths, v14 vs v15 interleaved
# where v15's candidate is picked, and the fused/unfused/plain trio at M = 256. Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/tests/gpu_gemm --ignored --test-threads=1 > "$OUT/gpu-gemm.log" 2>&1
grep -E "^test |test result|FAILED|panicked" "$OUT/gpu-gemm.log" | head -20
# The sanitizer's own logs stay on the machine (the device tool returns at most 8 files).
OUT=/tmp/san SANITIZE_FILTER="variant (15|6) " SANITIZE_TIMEOUT_S=120 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
grep -h -E "ERROR SUMMARY|========= (Invalid|Race|Uninit|Barrier)" /tmp/san/*.log | sort | uniq -c | head -20 >> "$OUT/sanitize.log"
tail -12 "$OUT/sanitize.log"
q="--min-time-ms 200 --max-time-ms 1500 --interleave"
{
for s in "160 4096 4096" "192 4096 4096" "256 4096 4096" "128 8192 8192" "500 2040 2056"; do
  set -- $s
  $B/roofline bench gemm --m $1 --n $2 --k $3 --variant v14,v15 $q
done
$B/roofline bench gemm-gelu --m 256 --n 4096 --k 4096 --impl fused,unfused --variant v14,v15 $q
} > "$OUT/bench.log" 2>&1
grep -E "^  (hgemm|gemm_bias_gelu)" "$OUT/bench.log" | cut -c1-110
