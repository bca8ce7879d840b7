#!/usr/bin/env bash
# The 32-column slab probe with less shared memory at 16 rows
# (scripts/device/probes/gemv_n32_l1.cu) at 4096², 16 rows (three runs) and 8 (one): v19's end
# with 15 floats per lane in red (30 KB: a 32 KB carveout fits) and, in run 4, both ends with
# their code run once before the walk, beside a copy of v19, GEMV v19 and the read (runs 2-3
# also timed carveouts). Its first lines check every form against rl_gemv v19 (bitwise).
# Build with `scripts/device/probes/build.sh gemv_n32_l1` and carry target/probes/gemv_n32_l1.
# Logs to $OUT (~1-2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_l1 2>&1 | tee "$OUT/n32-l1.txt"
