#!/usr/bin/env bash
# The predecessor probe (scripts/device/probes/pred_cost.cu; carry target/probes/pred_cost):
# one launch of our plain and fused GEMM at 64 rows, the GEMV at one row and the read of W
# (N = K = 4096, cold) after itself, an empty kernel, an instruction-cache flusher, the read,
# the bias+GELU kernel and the other GEMM; two runs (ROUNDS samples per pair each). Logs to
# $OUT/pred-cost.txt, printed.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for run in 1 2; do
  echo "== run $run"
  target/probes/pred_cost "${ROUNDS:-400}" 2>&1
done | tee "$OUT/pred-cost.txt"
