#!/usr/bin/env bash
# GEMV v14 (2..8 rows in the one-row slab's loop order): the GEMV GPU tests (every variant),
# compute-sanitizer over v14's runs, then v13 vs v14 with the read of W interleaved at 2, 4,
# 8 rows, 8192^2 (one CTA per slab) and 4096^2 (a (1, 2) cluster per slab), graph and one
# launch. Logs to $OUT; the comparison is printed
# last. BENCH_ONLY=1: the comparison alone; ROWS and VARIANTS replace its rows (2 4 8) and
# variants (v13,v14).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
if [ -z "${BENCH_ONLY:-}" ]; then
  ROOFLINE_BIN="$PWD/$B/roofline" $B/tests/gpu_memory_bound --ignored --test-threads=1 gemv \
    > "$OUT/tests.log" 2>&1
  echo "gemv gpu tests exit=$?"
  grep -E "test result|FAILED|panicked" "$OUT/tests.log"
  OUT=/tmp/san SANITIZE_FILTER="gemv --impl ours --variant 14 " SANITIZE_TIMEOUT_S=120 \
    bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
  tail -5 "$OUT/sanitize.log"
fi
for mode in --graph --launch; do
  for nk in 8192 4096; do
    for m in ${ROWS:-2 4 8}; do
      $B/roofline bench gemv --m $m --n $nk --k $nk --impl read,ours \
        --variant "${VARIANTS:-v13,v14}" --interleave $mode
    done
  done
done > "$OUT/bench.log" 2>&1
grep -E "x the time" "$OUT/bench.log" | cut -c1-120
