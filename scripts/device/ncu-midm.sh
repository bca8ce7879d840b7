#!/usr/bin/env bash
# Nsight Compute on the fused and plain best kernels at M = 64 and 256 (N = K = 4096), where
# the cluster split-K kernels run and the fused one measured 1.04x the plain one. Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for m in 64 256; do
  one="--m $m --n 4096 --k 4096 --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
  for what in "gemm --impl wmma" "gemm-gelu --impl fused"; do
    echo "######## M=$m $what"
    ncu_run --kernel-name regex:cluster --launch-count 3 $B/roofline bench $what $one 2>&1
  done
done > "$OUT/ncu.txt"
grep -E "########|Duration|Executed Instructions |Registers Per|Warp Cycles Per Issued|Cluster|Dynamic Shared|Grid Size" "$OUT/ncu.txt"
