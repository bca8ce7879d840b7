#!/usr/bin/env bash
# Fused vs plain best GEMM at M = 64 and 256 (N = K = 4096) in both timing modes: one launch
# (host launch path included) and back-to-back in a CUDA graph (kernel throughput). Ncu timed
# the two M=64 kernels alike; this tells whether the sweep's 1.04x there is launch-side.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
q="--min-time-ms 100 --max-time-ms 800"
for round in 1 2; do for m in 64 256; do for mode in --launch --graph; do
  $B/roofline bench gemm-gelu --m $m --n 4096 --k 4096 --impl fused $mode $q
  $B/roofline bench gemm --m $m --n 4096 --k 4096 --impl wmma $mode $q
done; done; done > "$OUT/modes.log" 2>&1
grep -E "^  (hgemm|gemm)" "$OUT/modes.log" | cut -c1-110
