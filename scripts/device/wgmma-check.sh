#!/usr/bin/env bash
# HGEMM / GEMM+GELU v22 (mid M on the wgmma tile) against v21 (VARIANTS, default v21,v22):
# - fused / unfused / plain of the variants interleaved at 128..512 x 4096², 500x2040x2056,
#   256x4096x8192, one launch, cold; the plain GEMM beside cuBLAS at 256 x 4096²;
# - the HGEMM and GEMM+GELU GPU tests, compute-sanitizer (4 tools) over v22's runs.
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
VARIANTS=${VARIANTS:-v21,v22}
{
  for shape in "128 4096 4096" "192 4096 4096" "256 4096 4096" "384 4096 4096" \
    "512 4096 4096" "500 2040 2056" "256 4096 8192"; do
    read -r m n k <<< "$shape"
    timeout 90 $B/roofline bench gemm-gelu --m "$m" --n "$n" --k "$k" --impl fused,unfused,plain \
      --variant "$VARIANTS" --interleave
  done
  timeout 90 $B/roofline bench gemm --m 256 --n 4096 --k 4096 --impl wmma,cublas --variant "$VARIANTS" \
    --interleave
} > "$OUT/bench.log" 2>&1
tests_and_sanitize "variant 22 " gpu_gemm
grep -E "cold launch|rror|FAIL|mismatch" "$OUT/bench.log" | cut -c1-100
