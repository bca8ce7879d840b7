#!/usr/bin/env bash
# The predecessor probe (scripts/device/probes/pred_cost.cu; carry target/probes/pred_cost):
# one launch of our plain and fused GEMM at 64 rows, the GEMV at 1, 8 and 16 rows and the read
# of W (N = K = 4096, then 8192; cold) after itself, an empty kernel, an instruction-cache
# flusher, the read, the bias+GELU kernel and the other GEMM; two runs at 4096 and one at 8192
# (ROUNDS samples per pair each). Logs to $OUT/pred-cost.txt, printed.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for run in "1 4096" "2 4096" "3 8192"; do
  set -- $run
  echo "== run $1, N = K = $2"
  target/probes/pred_cost "${ROUNDS:-400}" "$2" 2>&1
done | tee "$OUT/pred-cost.txt"
