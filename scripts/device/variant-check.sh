#!/usr/bin/env bash
# Two variants of HGEMM / GEMM+GELU against each other (VARIANTS, default v24,v25; first written
# for v24 / v25's few-row wgmma tile as wgmma-rows-check.sh, WR1-WR6; v26 ran it at the squares):
# - fused / unfused / plain of both interleaved at SHAPES (default: 17 / 24 / 32 / 48 / 64 x
#   4096², 17 / 32 / 64 x 8192² and 40x1096x2056, split 4), one launch, cold;
# - the plain GEMM beside cuBLAS at CUBLAS_SHAPES (default 64 x 4096², 64 x 8192²; CUBLAS=0
#   skips it);
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
  IFS=';' read -ra list <<< "${CUBLAS_SHAPES:-64 4096 4096;64 8192 8192}"
  [ "${CUBLAS:-1}" = 0 ] || for shape in "${list[@]}"; do
    read -r m n k <<< "$shape"
    echo "## cuBLAS $m x $n x $k"
    timeout 90 $B/roofline bench gemm --m "$m" --n "$n" --k "$k" --impl wmma,cublas \
      --variant "$VARIANTS" --interleave
  done
} > "$OUT/bench.log" 2>&1
tests_and_sanitize "${SAN_FILTER:-variant 2[45] }" gpu_gemm
grep -E "^## |cold launch|rror|FAIL|mismatch" "$OUT/bench.log" | cut -c1-100
