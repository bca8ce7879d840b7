#!/usr/bin/env bash
# Nsight Compute on the GEMV slab kernels at 8192^2 (no cluster): one row (gemv_slab1) against
# 2 rows in v9, v10 (rolling) and v11 (batched), to test the single-scoreboard reading of the
# 2..16-row gap (stall reasons, DRAM throughput, issue activity). Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
one="--n 8192 --k 8192 --impl ours --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
{
  for run in "1 v11" "2 v9" "2 v10" "2 v11" "16 v11"; do
    set -- $run
    echo "######## M=$1 $2"
    # --print-details all: the stall reasons behind Warp Cycles Per Issued Instruction (ncu
    # 2023.2+); without it if this ncu does not know the flag.
    ncu_run --section MemoryWorkloadAnalysis --print-details all --kernel-name regex:gemv_slab \
      --launch-count 1 --launch-skip 2 $B/roofline bench gemv --m $1 --variant $2 $one 2>&1 ||
      ncu_run --section MemoryWorkloadAnalysis --kernel-name regex:gemv_slab --launch-count 1 \
        --launch-skip 2 $B/roofline bench gemv --m $1 --variant $2 $one 2>&1
  done
} > "$OUT/ncu-gemv.txt"
grep -E "########|Duration|DRAM Throughput|Issue Slots Busy|Warp Cycles Per Issued|Long Scoreboard|No Eligible|Active Warps Per" "$OUT/ncu-gemv.txt" | cut -c1-110
