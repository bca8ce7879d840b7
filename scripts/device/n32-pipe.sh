#!/usr/bin/env bash
# The 32-column slab probe with v19's two half-units really in flight
# (scripts/device/probes/gemv_n32_pipe.cu) at 4096², 16 rows (three runs) and 12, 8, 4, 2
# (one each): predicated loads for the next unit and x's registers swapped per unit, beside
# GEMV v19 and the read. Its first lines check the form against rl_gemv v19 bitwise.
# Build with `scripts/device/probes/build.sh gemv_n32_pipe` and carry target/probes/gemv_n32_pipe.
# Logs to $OUT (~1-2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_pipe 2>&1 | tee "$OUT/n32-pipe.txt"
