#!/usr/bin/env bash
# The small-M order test once more (one round, M = 64, 256; its table opens $OUT/run.log),
# then `roofline report` into $OUT/h200 (GPU tests skipped: no kernel changed). 8 files in all.
# It ran A4 and report N on 7bda94e, whose interleaved groups primed each timed launch with an
# untimed launch of the same case (reverted since; docs/perf-log.md, A3 / A4); N's run.log
# heads that table "primed groups".
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
mkdir -p /tmp/order
OUT=/tmp/order ROUNDS=1 MS="64 256" bash scripts/device/smallm-order.sh > /dev/null 2>&1
{ echo "== small-M order test"; cat /tmp/order/summary.txt; } > "$OUT/run.log"
cat "$OUT/run.log"
SKIP_TESTS=1 bash scripts/device/report.sh
