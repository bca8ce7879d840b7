#!/usr/bin/env bash
# The square HGEMM's loop without its integer overhead (scripts/device/probes/square_lean.cu;
# carry target/probes/square_lean): the product's "best" (v25) and the lean loop interleaved at
# 4096³, 8192³ and 2048³ after a bitwise check of lean's C against the product's, ROUNDS sets
# (default 2), then Nsight Compute's tensor-pipe and instruction figures for both at 4096³.
# Logs to $OUT, printed.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/square_lean "${ROUNDS:-2}" 2>&1 | tee "$OUT/square-lean.txt"
"$NCU" --clock-control none --kernel-name "regex:pipelined_wmma|lean_kernel" --launch-count 2 \
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio \
  target/probes/square_lean 0 > "$OUT/square-lean-ncu.txt" 2>&1 || true
grep -E "^  [a-z].*\(|hmma|inst_executed|duration|stalled" "$OUT/square-lean-ncu.txt" | cut -c1-140
