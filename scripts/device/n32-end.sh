#!/usr/bin/env bash
# The 32-column slab probe (scripts/device/probes/gemv_n32_end.cu) at 4096², 16 and 8 rows:
# v18 / v19 with x staged in shared memory (per CTA, or multicast in (1, 2) clusters), beside
# v18, v19 and the read (runs 1 and 2 timed v18's end in one pass, the unit order rotated per
# CTA and the L2 prefetch). Its first lines check the copies against rl_gemv v19 and v18.
# Build with `scripts/device/probes/build.sh gemv_n32_end` and carry
# target/probes/gemv_n32_end. Logs to $OUT (~1 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_n32_end 2>&1 | tee "$OUT/n32-end.txt"
