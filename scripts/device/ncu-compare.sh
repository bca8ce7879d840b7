#!/usr/bin/env bash
# Nsight Compute's headline figures for our GEMM kernels under several bench commands, side by
# side: duration, SM clock, tensor-pipe activity, instructions executed, the main stall reasons
# per issued instruction. RUNS: roofline arguments separated by ';' (default: HGEMM v26, and
# GEMM+GELU fused v26 and v25, at 4096³: why v26's lean loop gained 6% plain and 2.4% fused).
# One launch each, no verification. Logs to $OUT/ncu-compare.txt; the summary is printed.
# SOURCE=1: also the PC sampler's stall samples per SASS instruction, one CSV per run
# ($OUT/sass-<n>.csv, n counting the runs from 1). SHAPE: the shape arguments (default M³, M
# default 4096); KERNEL: ncu's kernel filter (default our GEMM kernels), e.g. SHAPE="--m 16
# --n 4096 --k 4096" KERNEL="regex:gemv_slab_n32" for GEMV v19's 16-row slabs.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
one="${SHAPE:---m ${M:-4096} --n ${M:-4096} --k ${M:-4096}} --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
RUNS=${RUNS:-"bench gemm --impl wmma --variant 26;bench gemm-gelu --impl fused --variant 26;bench gemm-gelu --impl fused --variant 25"}
metrics="gpu__time_duration.sum,smsp__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"
IFS=';' read -ra list <<< "$RUNS"
n=0
for run in "${list[@]}"; do
  n=$((n + 1))
  echo "######## $run"
  src=()
  [ "${SOURCE:-0}" = 1 ] && src=(--section SourceCounters -o "/tmp/ncu-compare-$n" -f)
  # shellcheck disable=SC2086
  "$NCU" --clock-control none --metrics "$metrics" --kernel-name "${KERNEL:-regex:_wmma_kernel|splitk_kernel}" \
    "${src[@]}" --launch-count 1 $B/roofline $run $one 2>&1
  if [ "${SOURCE:-0}" = 1 ]; then
    "$NCU" -i "/tmp/ncu-compare-$n.ncu-rep" --print-details all 2>&1
    "$NCU" -i "/tmp/ncu-compare-$n.ncu-rep" --page source --csv --print-source sass \
      > "$OUT/sass-$n.csv" 2>&1 || true
  fi
done > "$OUT/ncu-compare.txt"
grep -E "########|^  [a-zA-Z_].*\(|gpu__time|per_second|hmma|inst_executed|registers|stalled" \
  "$OUT/ncu-compare.txt" | sed -E 's/smsp__average_warps_issue_stalled_(.*)_per_issue_active.ratio/stall \1/' | cut -c1-140
