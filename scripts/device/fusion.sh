#!/usr/bin/env bash
# The fused epilogue's cost on the GPU machine: the fusion sweep (fused, unfused and plain
# interleaved per shape), then Nsight Compute on the fused and plain best kernels at 2048^3
# (one wave of 256x128 tiles, where the epilogue overlaps nothing). Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/roofline sweep fusion --out "$OUT/fusion.json" > "$OUT/fusion.log" 2>&1; echo "sweep exit=$?"
one="--m 2048 --n 2048 --k 2048 --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
for what in "gemm --impl wmma" "gemm-gelu --impl fused"; do
  echo "######## $what"
  ncu_run --kernel-name regex:pipelined --launch-count 1 $B/roofline bench $what $one 2>&1
done > "$OUT/ncu.txt"
echo "== summary"
grep -E "^  (hgemm|gemm)" "$OUT/fusion.log" | cut -c1-120
grep -E "########|Duration|Executed Instructions |Registers Per|Warp Cycles Per Issued|Issued Warp Per|No Eligible" "$OUT/ncu.txt"
