#!/usr/bin/env bash
# Nsight Compute on the square HGEMM at 4096³ (our "best", which runs the WMMA 256x128 tile
# there): where its warps stall (the stall reasons per issued instruction, and per SASS
# instruction from the PC sampler), beside the SM, tensor-pipe and memory throughputs; cuBLAS at
# the same shape for scale. The kernel filter names our GEMM kernels only: "wmma" alone also
# matches the WMMA ceiling probe, which a bench runs first (NS's first call profiled that). Needs only bundle/roofline. Logs to $OUT (~60-90 s).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
one="--m ${M:-4096} --n ${M:-4096} --k ${M:-4096} --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
stalls="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
pipes="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__cycles_elapsed.avg"
{
  echo "######## ours (best)"
  ncu_run --section SourceCounters --section MemoryWorkloadAnalysis --metrics "$stalls,$pipes" \
    --kernel-name "regex:_wmma_kernel|splitk_kernel" --launch-count 1 -o /tmp/square -f \
    $B/roofline bench gemm --impl wmma --variant best $one 2>&1
  "$NCU" -i /tmp/square.ncu-rep --print-details all 2>&1
  echo "######## cuBLAS"
  "$NCU" --clock-control none --section SpeedOfLight --metrics "$stalls,$pipes" \
    --kernel-name "regex:gemm|nvjet|xmma|cutlass" --launch-count 1 \
    $B/roofline bench gemm --impl cublas $one 2>&1
} > "$OUT/ncu-square.txt"
# Per-instruction view (PC sampling: stall samples per SASS line), if this ncu can print it.
"$NCU" -i /tmp/square.ncu-rep --page source --csv --print-source sass > "$OUT/square-sass.csv" 2>&1 || true
grep -E "########|^  [a-zA-Z_].*\(|Duration|SM Frequency|Registers Per|Compute \(SM\) Throughput|Warp Cycles Per Issued|Eligible Warps|Issue Slots Busy|issue_stalled_.*per_issue_active|pipe_tensor|wavefronts_mem_shared|inst_executed.sum" \
  "$OUT/ncu-square.txt" | awk '{ if ($NF+0 >= 0.05 || $0 !~ /issue_stalled/) print }' | cut -c1-150
wc -l "$OUT/square-sass.csv"; head -c 600 "$OUT/square-sass.csv"
