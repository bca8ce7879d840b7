#!/usr/bin/env bash
# The committed H200 report on the GPU machine: every GPU test of the bundle, then
# `roofline report` into $OUT/h200 (7 files). One log, $OUT/run.log, so that the whole run
# is 8 files. Copy $OUT/h200 to docs/results/h200 afterwards.
# Together they take ~11 min (tests ~4, report ~8), over the device tool's 600 s per call
# (thirteenth session): run TESTS_ONLY=1 in one call, then SKIP_TESTS=1 in the next.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
if [ -z "${SKIP_TESTS:-}" ]; then  # SKIP_TESTS=1: the tests already ran on these kernels
  $B/run-gpu-tests.sh > "$OUT/run.log" 2>&1
  echo "gpu tests exit=$?" | tee -a "$OUT/run.log"
fi
if [ -z "${TESTS_ONLY:-}" ]; then
  $B/roofline report --out "$OUT/h200" >> "$OUT/run.log" 2>&1
  echo "report exit=$?" | tee -a "$OUT/run.log"
fi
echo "== summary"
grep -E "test result|FAILED|panicked" "$OUT/run.log" | sort | uniq -c
tail -4 "$OUT/run.log"
