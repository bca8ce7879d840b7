#!/usr/bin/env bash
# GEMM+GELU v23 (the parked epilogue in 4 row parts) against v22 (VARIANTS, default v22,v23):
# - fused / plain of both variants interleaved at the one-wave shapes (2048³ and
#   1024x4096x4096: every CTA's epilogue exposed), three rounds, the erf form at 2048³;
# - fused / unfused / plain at 4096³, 8192x4096x4096, 256 x 4096² (the wgmma tile: unchanged)
#   and 2000x1928x72 (the parked tile with partial warp tiles);
# - compute-sanitizer (4 tools) over v23's runs (the GPU tests run with the report's bundle:
#   TESTS_ONLY=1 scripts/device/report.sh).
# Logs to $OUT; the ratios are printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
VARIANTS=${VARIANTS:-v22,v23}
{
  for round in 1 2 3; do
    for shape in "2048 2048 2048" "1024 4096 4096"; do
      read -r m n k <<< "$shape"
      echo "## round $round $m x $n x $k"
      timeout 90 $B/roofline bench gemm-gelu --m "$m" --n "$n" --k "$k" --impl fused,plain \
        --variant "$VARIANTS" --interleave
    done
  done
  echo "## erf 2048 x 2048 x 2048"
  timeout 90 $B/roofline bench gemm-gelu --m 2048 --n 2048 --k 2048 --impl fused,plain \
    --variant "$VARIANTS" --interleave --gelu erf
  for shape in "4096 4096 4096" "8192 4096 4096" "256 4096 4096" "2000 1928 72"; do
    read -r m n k <<< "$shape"
    echo "## $m x $n x $k"
    timeout 120 $B/roofline bench gemm-gelu --m "$m" --n "$n" --k "$k" \
      --impl fused,unfused,plain --variant "$VARIANTS" --interleave
  done
} > "$OUT/bench.log" 2>&1
OUT=/tmp/san SANITIZE_FILTER="variant 23 " SANITIZE_TIMEOUT_S=120 \
  bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
echo "sanitize exit=$?"
tail -5 "$OUT/sanitize.log"
grep -E "^## |x the time of our plain" "$OUT/bench.log" | cut -c1-110
