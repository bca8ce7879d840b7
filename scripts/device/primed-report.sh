#!/usr/bin/env bash
# After the interleaved groups were primed (each timed launch preceded by an untimed launch
# of the same case, src/measure/engine.rs): the small-M order test once more (one round, M =
# 16, 64, 256; its table opens $OUT/run.log), then `roofline report` into $OUT/h200 (GPU tests
# skipped: no kernel changed). 8 files in all.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
mkdir -p /tmp/order
OUT=/tmp/order ROUNDS=1 MS="16 64 256" bash scripts/device/smallm-order.sh > /dev/null 2>&1
{ echo "== small-M order test, primed groups"; cat /tmp/order/summary.txt; } > "$OUT/run.log"
cat "$OUT/run.log"
SKIP_TESTS=1 bash scripts/device/report.sh
