#!/usr/bin/env bash
# GEMV v15 / HGEMM and GEMM+GELU v21 (the clusters' partial sums sent by st.async onto the
# peer's mbarrier). PART=tests (default): every GPU test of the bundle, then v14 vs v15 with
# the read of W interleaved at M = 1, 2, 4, 8, 16, 4096^2 and 8192^2, graph and one launch,
# and v20 vs v21 (plain and fused, with unfused) at M = 4, 16, 64 x 4096 x 4096. PART=sanitize:
# compute-sanitizer (4 tools) over the runs of scripts/sanitize.sh that take the new paths.
# Logs to $OUT; summaries printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
if [ "${PART:-tests}" = sanitize ]; then
  OUT=/tmp/san SANITIZE_FILTER="gemv --impl ours --variant 15 |variant 21 " \
    SANITIZE_TIMEOUT_S=120 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
  tail -7 "$OUT/sanitize.log"
  exit 0
fi
$B/run-gpu-tests.sh > "$OUT/tests.log" 2>&1
echo "gpu tests exit=$?"
{
  for n in 4096 8192; do
    for mode in --launch --graph; do
      for m in 1 2 4 8 16; do
        $B/roofline bench gemv --m "$m" --n "$n" --k "$n" --impl read,ours --variant v14,v15 \
          --interleave $mode --no-verify
      done
    done
  done
  for m in 4 16 64; do
    $B/roofline bench gemm-gelu --m "$m" --n 4096 --k 4096 --impl fused,unfused,plain \
      --variant v20,v21 --interleave --no-verify
  done
} > "$OUT/bench.log" 2>&1
grep -E "test result|FAILED|panicked" "$OUT/tests.log" | sort | uniq -c
grep -E "^\s*(gemv|read|gemm|unfused|fused|plain)|over the read|x the read" "$OUT/bench.log" | cut -c1-150 | head -80
