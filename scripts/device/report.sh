#!/usr/bin/env bash
# The committed H200 report on the GPU machine: every GPU test of the bundle, then
# `roofline report` into $OUT/h200 (7 files). One log, $OUT/run.log, so that the whole run
# is 8 files. Copy $OUT/h200 to docs/results/h200 afterwards.
# Together they take ~11-15 min (tests ~4-5, report 8-9.5: 572 s in AB, 477 in AC), over the
# device tool's 600 s per call: run TESTS_ONLY=1 in one call, then SKIP_TESTS=1 in the next.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
if [ -z "${SKIP_TESTS:-}" ]; then  # SKIP_TESTS=1: the tests already ran on these kernels
  $B/run-gpu-tests.sh > "$OUT/run.log" 2>&1
  echo "gpu tests exit=$?" | tee -a "$OUT/run.log"
fi
# The report stops itself (SIGINT) after REPORT_LIMIT_S seconds (default 560, inside the
# device tool's 600 s per call), keeping the finished sweeps in $OUT/h200/partial.json (exit
# 130). Carry that file back (e.g. in target/resume/) and run again at once, on the same
# machine, with RESUME_FROM=target/resume: the report goes on after those sweeps (--resume).
if [ -z "${TESTS_ONLY:-}" ]; then
  mkdir -p "$OUT/h200"
  if [ -n "${RESUME_FROM:-}" ]; then cp "$RESUME_FROM/partial.json" "$OUT/h200/"; fi
  timeout -s INT "${REPORT_LIMIT_S:-560}" $B/roofline report --out "$OUT/h200" --resume \
    >> "$OUT/run.log" 2>&1
  echo "report exit=$?" | tee -a "$OUT/run.log"
fi
echo "== summary"
grep -E "test result|FAILED|panicked" "$OUT/run.log" | sort | uniq -c
tail -4 "$OUT/run.log"
