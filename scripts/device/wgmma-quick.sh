#!/usr/bin/env bash
# A short A/B of the wgmma variants (VARIANTS, default v22,v23): fused / unfused / plain
# interleaved at 128 / 256 / 512 x 4096², one launch, cold; compute-sanitizer over v23's runs.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
VARIANTS=${VARIANTS:-v22,v23}
{
  for m in 256 128 512; do
    timeout 90 $B/roofline bench gemm-gelu --m "$m" --n 4096 --k 4096 \
      --impl fused,unfused,plain --variant "$VARIANTS" --interleave
  done
} > "$OUT/bench.log" 2>&1
OUT=/tmp/san SANITIZE_FILTER="variant 23 " SANITIZE_TIMEOUT_S=60 bash scripts/sanitize.sh \
  > "$OUT/sanitize.log" 2>&1
tail -7 "$OUT/sanitize.log"
grep -E "cold launch|rror|FAIL|mismatch|x the time" "$OUT/bench.log" | cut -c1-100
