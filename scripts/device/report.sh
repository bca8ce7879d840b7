#!/usr/bin/env bash
# The committed report on the GPU machine: every GPU test of the bundle (TESTS_ONLY=1), or the
# report (SKIP_TESTS=1): `roofline report --counters` with the example user kernels into
# $OUT/<card> (h200, h100: the folder docs/results/ keeps per GPU, named from nvidia-smi so an
# H100's run is never filed as the H200's), then the cross-check (scripts/crosscheck.py) beside
# it, then `roofline check --random $CHECK_RANDOM` where that is set. One log, $OUT/run.log.
# Copy $OUT/<card> to docs/results/<card> afterwards.
# REQUIRE_CARD=H200 exits 3 before anything runs on any other card: the device tool may lend
# an H100 for an H200, and a lease's seconds are better spent asking again.
# The report takes ~3-5 min with the counters pass, the GPU tests ~6-7, check --random 500
# ~30 s: run the tests and the report in separate calls (the device tool allows 600 s a call).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
card=$(printf '%s' "$name" | grep -o 'H[0-9]\{3\}' | head -1 | tr 'A-Z' 'a-z')
card=${card:-gpu}
echo "card: ${name:-none found} (results in $OUT/$card)" | tee -a "$OUT/run.log"
if [ -n "${REQUIRE_CARD:-}" ] && ! printf '%s' "$name" | grep -q "$REQUIRE_CARD"; then
  echo "REQUIRE_CARD=$REQUIRE_CARD: this card is not one; stopped before the run" | tee -a "$OUT/run.log"
  exit 3
fi
if [ -z "${SKIP_TESTS:-}" ]; then  # SKIP_TESTS=1: the tests already ran on these kernels
  $B/run-gpu-tests.sh >> "$OUT/run.log" 2>&1
  echo "gpu tests exit=$?" | tee -a "$OUT/run.log"
fi
# The report stops itself (SIGINT) after REPORT_LIMIT_S seconds (default 400), keeping the
# finished sweeps in $OUT/<card>/partial.json (exit 130); RESUME_FROM=DIR holding that file
# goes on after them (--resume).
if [ -z "${TESTS_ONLY:-}" ]; then
  mkdir -p "$OUT/$card"
  if [ -n "${RESUME_FROM:-}" ]; then cp "$RESUME_FROM/partial.json" "$OUT/$card/"; fi
  user=()
  for f in examples/kernels/*.cu; do user+=(--kernel-file "$f"); done
  timeout -s INT "${REPORT_LIMIT_S:-400}" $B/roofline report --out "$OUT/$card" --resume \
    --counters "${user[@]}" >> "$OUT/run.log" 2>&1
  echo "report exit=$?" | tee -a "$OUT/run.log"
  ROOFLINE_BIN=$B/roofline timeout "${CROSS_LIMIT_S:-300}" python3 scripts/crosscheck.py \
    --out "$OUT/$card/crosscheck.md" >> "$OUT/run.log" 2>&1
  echo "crosscheck exit=$?" | tee -a "$OUT/run.log"
  if [ -n "${CHECK_RANDOM:-}" ]; then
    timeout "${CHECK_LIMIT_S:-120}" $B/roofline check --random "$CHECK_RANDOM" >> "$OUT/run.log" 2>&1
    echo "check --random $CHECK_RANDOM exit=$?" | tee -a "$OUT/run.log"
  fi
fi
echo "== summary"
grep -E "test result|FAILED|panicked|wall|: [0-9.]+ s$|time split|in one ncu run|exit=" "$OUT/run.log" | sort | uniq -c
tail -4 "$OUT/run.log"
