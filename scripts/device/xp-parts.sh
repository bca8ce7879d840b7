#!/usr/bin/env bash
# The XP-loop probe (scripts/device/probes/gemv_xp_parts.cu) at 4096², the (1, 2) cluster form:
# where GEMV v17's 2..16-row time over the read goes (MMAs, x's loads, the end's reduction and
# exchange), and the end over the rows below M only (a candidate). Its first lines check the
# copy against the product bitwise. Build with `scripts/device/probes/build.sh gemv_xp_parts`
# and carry target/probes/gemv_xp_parts. Logs to $OUT (~2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/gemv_xp_parts 4096 2>&1 | tee "$OUT/xp-parts.txt"
