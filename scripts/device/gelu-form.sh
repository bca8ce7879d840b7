#!/usr/bin/env bash
# How much of the fused epilogue's cost at one-wave shapes is the GELU arithmetic? fused /
# plain with the tanh form (one MUFU.TANH and 5 FP32 ops per value) against the erf form
# (erff: a longer FMA-pipe sequence), interleaved with plain, settled clocks (1.5 s warm-up,
# >= 1 s of samples), cold, one launch, two rounds. Logs to $OUT; fused / plain printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for round in 1 2; do
  for s in "--m 2048 --n 2048 --k 2048" "--m 1024 --n 4096 --k 4096"; do
    for g in tanh erf; do
      $B/roofline bench gemm-gelu $s --impl fused,plain --gelu $g --interleave --no-verify \
        --warmup-ms 1500 --min-time-ms 1000 --max-time-ms 2000 2>&1 | tee -a "$OUT/bench.log" \
        | grep -E "ours|plain" | sed "s/^/r$round $g /"
    done
  done
done
