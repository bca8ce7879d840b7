#!/usr/bin/env bash
# The fused epilogue taken apart (scripts/device/probes/epi_parts.cu; carry
# target/probes/epi_parts): GEMM+GELU v22's kernels at 2048³ and 1024x4096x4096 with the
# product's functor, the plain GEMM, and timing-only functors without the tanh, with the tanh
# alone, with the bias alone, the parked path alone, the product's function on the strip
# epilogue, and (run PP) the tile parked in 2 / 4 row parts; with MODE=parts (run PR) the parts
# as one rolled loop, tanh and erf forms. ROUNDS sets of interleaved rounds (default 3), twice.
# Logs to $OUT/epi-parts.txt, printed.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for run in 1 2; do
  echo "== run $run"
  target/probes/epi_parts "${ROUNDS:-3}" ${MODE:+"$MODE"} 2>&1
done | tee "$OUT/epi-parts.txt"
