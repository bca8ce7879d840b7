#!/usr/bin/env bash
# The fused epilogue's cost where nothing hides it (2048^3: one wave of tiles) and at the
# large shapes, new bundle against the old binary ($OLD, the previous build): our fused
# GEMM+GELU over our plain GEMM. The new binary times fused, unfused and plain interleaved
# (`--impl fused,unfused,plain --interleave`), three rounds at 2048^3; the old one, which
# has no `plain`, times `bench gemm` and `bench gemm-gelu` back to back. Then the gemm GPU
# tests, `check` over the fused family and the CLI's GPU test of `--impl plain`. Logs to
# $OUT; the ratios are printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
OLD=${OLD:-target/old/roofline}
shape="--m 2048 --n 2048 --k 2048"
for round in 1 2 3; do
  echo "## round $round new"
  $B/roofline bench gemm-gelu $shape --impl fused,unfused,plain --interleave 2>&1
  echo "## round $round old"
  $OLD bench gemm $shape --impl wmma 2>&1
  $OLD bench gemm-gelu $shape --impl fused 2>&1
done > "$OUT/ab.log"
for s in "--m 4096 --n 4096 --k 4096" "--m 1024 --n 4096 --k 4096" "--m 8192 --n 4096 --k 4096" "--m 256 --n 4096 --k 4096"; do
  echo "## new $s"
  $B/roofline bench gemm-gelu $s --impl fused,plain --interleave 2>&1
done >> "$OUT/ab.log"
ROOFLINE_BIN="$PWD/$B/roofline" $B/tests/gpu_gemm --ignored --test-threads=1 > "$OUT/gpu-gemm.log" 2>&1
echo "gpu_gemm exit=$?"
$B/roofline check --kernel gemm_bias_gelu --random 40 > "$OUT/check.log" 2>&1
echo "check exit=$?"
ROOFLINE_BIN="$PWD/$B/roofline" $B/tests/cli_gpu_presence --ignored --test-threads=1 gemm_gelu_plain > "$OUT/cli-gpu.log" 2>&1
echo "cli_gpu_presence exit=$?"
grep -E "test result|FAILED|panicked" "$OUT/gpu-gemm.log" "$OUT/cli-gpu.log" | head
tail -3 "$OUT/check.log"
grep -E "^## |plain GEMM|^  hgemm|^  gemm_bias_gelu ours" "$OUT/ab.log" | cut -c1-110
