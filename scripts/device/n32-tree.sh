#!/usr/bin/env bash
# The 32-column slab probe with shorter ends (scripts/device/probes/gemv_n32_tree.cu) at
# 4096², 16 rows (three runs) and 8 (one): v19's end in two levels (groups of 4 warps, then
# the groups), 8 warps each walking two of v19's unit sequences (flat or grouped end), and
# v19 with y's store skipped (a diagnostic), beside a copy of v19, GEMV v19 and the read. Its
# first lines check the copy against rl_gemv v19 bitwise, the other forms within 1e-3.
# Build with `scripts/device/probes/build.sh gemv_n32_tree` and carry target/probes/gemv_n32_tree.
# Logs to $OUT (~1-2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_tree 2>&1 | tee "$OUT/n32-tree.txt"
