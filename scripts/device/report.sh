#!/usr/bin/env bash
# The committed H200 report on the GPU machine: every GPU test of the bundle (TESTS_ONLY=1),
# or the report (SKIP_TESTS=1): `roofline report --counters` with the example user kernels
# into $OUT/h200, then the cross-check (scripts/crosscheck.py) beside it. One log,
# $OUT/run.log. Copy $OUT/h200 to docs/results/h200 afterwards.
# The report takes ~3-5 min with the counters pass, the GPU tests ~6-7: run them in
# separate calls (the device tool allows 600 s per call).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
if [ -z "${SKIP_TESTS:-}" ]; then  # SKIP_TESTS=1: the tests already ran on these kernels
  $B/run-gpu-tests.sh > "$OUT/run.log" 2>&1
  echo "gpu tests exit=$?" | tee -a "$OUT/run.log"
fi
# The report stops itself (SIGINT) after REPORT_LIMIT_S seconds (default 400), keeping the
# finished sweeps in $OUT/h200/partial.json (exit 130); RESUME_FROM=DIR holding that file
# goes on after them (--resume).
if [ -z "${TESTS_ONLY:-}" ]; then
  mkdir -p "$OUT/h200"
  if [ -n "${RESUME_FROM:-}" ]; then cp "$RESUME_FROM/partial.json" "$OUT/h200/"; fi
  user=()
  for f in examples/kernels/*.cu; do user+=(--kernel-file "$f"); done
  timeout -s INT "${REPORT_LIMIT_S:-400}" $B/roofline report --out "$OUT/h200" --resume \
    --counters "${user[@]}" >> "$OUT/run.log" 2>&1
  echo "report exit=$?" | tee -a "$OUT/run.log"
  ROOFLINE_BIN=$B/roofline timeout "${CROSS_LIMIT_S:-300}" python3 scripts/crosscheck.py \
    --out "$OUT/h200/crosscheck.md" >> "$OUT/run.log" 2>&1
  echo "crosscheck exit=$?" | tee -a "$OUT/run.log"
fi
echo "== summary"
grep -E "test result|FAILED|panicked|wall|: [0-9.]+ s$|time split|in one ncu run" "$OUT/run.log" | sort | uniq -c
tail -4 "$OUT/run.log"
