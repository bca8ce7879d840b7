#!/usr/bin/env bash
# The 32-column slab probe on x's first touch (scripts/device/probes/gemv_n32_rot.cu) at
# 4096², 16 rows (three runs) and 8 (one): v19 with x prefetched into L2, v19's unit
# sequences rotated per group of 4 CTAs, both, and a diagnostic loading only x's rows 0..7 at
# 16 rows, beside a copy of v19, GEMV v19 and the read. Its first lines check the copy and
# the prefetch form against rl_gemv v19 bitwise, the rotated forms within 1e-3. With the
# argument `pf` (RX2): W's units prefetched whole into L2 by cp.async.bulk.prefetch, 0, 1 or
# all units ahead, beside a copy of v19 (all bitwise v19's y). With `tl` (RX3): the copy's
# timeline per CTA from %globaltimer stamps (a diagnostic, no timing of forms). With `ring`
# (RX6): W and x through a per-warp cp.async ring of 2, 3 or 4 half-unit stages (bitwise).
# With `lpf` (RX7): v19 with per-lane L2 prefetches of the unit 1 or 2 ahead (bitwise).
# Build with `scripts/device/probes/build.sh gemv_n32_rot` and carry target/probes/gemv_n32_rot.
# Logs to $OUT (~1-2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
set=${1:-rot}
target/probes/gemv_n32_rot "$set" 2>&1 | tee "$OUT/n32-$set.txt"
