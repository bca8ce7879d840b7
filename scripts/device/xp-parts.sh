#!/usr/bin/env bash
# The XP-loop probe (scripts/device/probes/gemv_xp_parts.cu) at 4096², the (1, 2) cluster form:
# where GEMV v17's 2..16-row time over the read goes (the end: its reduction and exchange), and
# candidates for the end (the rows below M only, st.async.v4, rows split between a slab's
# CTAs; the 32-column slabs, GEMV v18's loop, are timed by n32-end.sh now). Its first lines
# check the copies against the product. Build with
# `scripts/device/probes/build.sh gemv_xp_parts` and carry target/probes/gemv_xp_parts. Logs
# to $OUT (~1 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_xp_parts 4096 2>&1 | tee "$OUT/xp-parts.txt"
