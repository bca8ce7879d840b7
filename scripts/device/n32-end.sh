#!/usr/bin/env bash
# The 32-column slab probe (scripts/device/probes/gemv_n32_end.cu) at 4096², 16 and 8 rows:
# GEMV v18's end in one pass (v18's order and a tree), and the unit order rotated per CTA,
# beside v18 and the read. Its first lines check the copies against rl_gemv v18. Build with
# `scripts/device/probes/build.sh gemv_n32_end` and carry target/probes/gemv_n32_end. Logs to
# $OUT (~1 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_end 2>&1 | tee "$OUT/n32-end.txt"
