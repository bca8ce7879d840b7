#!/usr/bin/env bash
# The 32-column slab probe with x multicast in clusters (scripts/device/probes/gemv_n32_mc.cu)
# at 4096², 16 rows (three runs) and 8 rows (one): rounds of x by bulk copies multicast to
# (1, 2) and (1, 4) clusters, beside GEMV v19 and the read. Its first lines check every form
# against rl_gemv v19 (bitwise) and print how many clusters fit at once.
# Build with `scripts/device/probes/build.sh gemv_n32_mc` and carry target/probes/gemv_n32_mc.
# Logs to $OUT (~1-2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_mc 2>&1 | tee "$OUT/n32-mc.txt"
