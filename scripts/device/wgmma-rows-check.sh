#!/usr/bin/env bash
# HGEMM / GEMM+GELU v24 / v25 (17..64 rows on a 64-row wgmma tile, K split over a cluster; v25
# one kernel for both families) against each other (VARIANTS, default v24,v25; WR1-WR5 ran
# v23,v24):
# - fused / unfused / plain of both interleaved at 17 / 24 / 32 / 48 / 64 x 4096², 17 / 32 / 64 x 8192²
#   and 40x1096x2056 (split 4), one launch, cold; the plain GEMM beside cuBLAS at 64 x 4096²
#   and 64 x 8192²;
# - the HGEMM and GEMM+GELU GPU tests, compute-sanitizer (4 tools) over the runs of
#   scripts/sanitize.sh that match SAN_FILTER (default: v24's and v25's).
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
VARIANTS=${VARIANTS:-v24,v25}
# SHAPES: "m n k" triples separated by ';' (default: the list above); CUBLAS=0 skips cuBLAS.
SHAPES=${SHAPES:-"64 4096 4096;17 4096 4096;24 4096 4096;32 4096 4096;48 4096 4096;64 8192 8192;32 8192 8192;17 8192 8192;40 1096 2056"}
{
  IFS=';' read -ra list <<< "$SHAPES"
  for shape in "${list[@]}"; do
    read -r m n k <<< "$shape"
    echo "## $m x $n x $k"
    timeout 90 $B/roofline bench gemm-gelu --m "$m" --n "$n" --k "$k" --impl fused,unfused,plain \
      --variant "$VARIANTS" --interleave
  done
  [ "${CUBLAS:-1}" = 0 ] || for n in 4096 8192; do
    echo "## cuBLAS 64 x $n x $n"
    timeout 90 $B/roofline bench gemm --m 64 --n $n --k $n --impl wmma,cublas \
      --variant "$VARIANTS" --interleave
  done
} > "$OUT/bench.log" 2>&1
tests_and_sanitize "${SAN_FILTER:-variant 2[45] }" gpu_gemm
grep -E "^## |cold launch|rror|FAIL|mismatch" "$OUT/bench.log" | cut -c1-100
