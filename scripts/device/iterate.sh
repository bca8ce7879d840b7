#!/usr/bin/env bash
# One development pass on the GPU machine: every GPU test, the ceilings twice, the HGEMM
# progression at three sizes, and the decode / elementwise / fusion sweeps. At most 8 files
# land in $OUT (the device tool's limit).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  $B/run-gpu-tests.sh 2>&1 | grep -E "^test |test result|panicked|FAILED|^==|failures|v[0-9]+ |: " | head -200
} > "$OUT/gpu-tests.log" 2>&1
grep -E "test result|FAILED" "$OUT/gpu-tests.log"
{ $B/roofline ceilings --refresh; $B/roofline ceilings --refresh; } > "$OUT/ceilings.txt" 2>&1
grep -E "hbm|l2_|tensor|fp32|fp16_h|launch" "$OUT/ceilings.txt" | cut -c1-60
for n in 2048 4096 8192; do
  $B/roofline bench gemm --m $n --n $n --k $n --variant all --no-verify --json 2>&1 >/dev/null | grep -E "TFLOP" | cut -c1-110
done
for s in ${SWEEPS:-decode elementwise fusion}; do
  $B/roofline sweep $s --out "$OUT/$s.json" >> "$OUT/sweeps.log" 2>&1 || echo "sweep $s failed: $(tail -3 $OUT/sweeps.log)"
done
grep -E "FAILED|error|warning" "$OUT/sweeps.log" | head -20
