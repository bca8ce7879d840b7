#!/usr/bin/env bash
# The 32-column slab probe with a deeper ring of W (scripts/device/probes/gemv_n32_ring.cu) at
# 4096², 16 and 8 rows: v19's loop in the sector order and rings of 2 / 3 half-unit steps (run
# 1: 2 / 3 / 4 in v19's order) beside GEMV v19 and the read, three runs each. Its first lines
# check every candidate against rl_gemv v19 (bitwise where it sums in v19's order).
# Build with `scripts/device/probes/build.sh gemv_n32_ring` and carry
# target/probes/gemv_n32_ring. Logs to $OUT (~1 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_ring 2>&1 | tee "$OUT/n32-ring.txt"
