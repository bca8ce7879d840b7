#!/usr/bin/env bash
# HGEMM / GEMM+GELU v14 (the GEMV slabs at M <= 16) on the GPU machine: the GEMM GPU tests,
# compute-sanitizer over the v13 and v14 paths, and v13 vs v14 interleaved at the decode
# shapes (plain, and fused vs unfused). Logs to $OUT (at most 8 files); a summary last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
q="--min-time-ms 50 --max-time-ms 600"
$B/tests/gpu_gemm --ignored > "$OUT/gpu-gemm.log" 2>&1
echo "gpu_gemm exit=$?"
san=$(mktemp -d)
OUT="$san" SANITIZE_FILTER="variant 1[34]" ROOFLINE_BIN=$B/roofline \
  scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
echo "sanitize exit=$?"
cat "$san"/*.log > "$OUT/sanitizer-tools.log"
{
  for nk in 4096 8192; do for m in 1 4 16; do
    $B/roofline bench gemm --m $m --n $nk --k $nk --variant 13,14 --interleave $q
  done; done
  for m in 1 4 16; do
    $B/roofline bench gemm-gelu --m $m --n 4096 --k 4096 --impl fused,unfused --variant 13,14 --interleave $q
  done
} > "$OUT/benches.log" 2>&1
echo "== summary"
grep -E "test result|FAILED|panicked" "$OUT/gpu-gemm.log" | head
tail -8 "$OUT/sanitize.log"
grep -E "^  (hgemm|gemm)" "$OUT/benches.log" | cut -c1-140
