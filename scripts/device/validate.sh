#!/usr/bin/env bash
# After a kernel change, on the GPU machine: every GPU test, `roofline check` with random
# shapes, the decode sweep, the LayerNorm target benches (cold; one launch and graph) and the
# HGEMM v12 and v13 at M=256, interleaved.
# Logs to $OUT (at most 8 files); a short summary last on stdout.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
q="--min-time-ms 50 --max-time-ms 600"
$B/run-gpu-tests.sh > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit=$?"
$B/roofline check --random "${RANDOM_SHAPES:-200}" > "$OUT/check.log" 2>&1
echo "check exit=$?"
$B/roofline sweep decode --out "$OUT/decode.json" > "$OUT/decode.log" 2>&1 || echo "sweep decode failed"
{
  $B/roofline bench layernorm --rows 4096 --hidden 4096 --graph --variant all $q
  $B/roofline bench layernorm --rows 32768 --hidden 4096 --variant 2,3,4 $q
  $B/roofline bench gemm --m 256 --n 4096 --k 4096 --variant 12,13 --interleave $q
} > "$OUT/benches.log" 2>&1
echo "== summary"
grep -E "test result|FAILED|panicked" "$OUT/gpu-tests.log" | sort | uniq -c | head -20
tail -3 "$OUT/check.log"
grep -E "^  (layernorm|hgemm|gemm)" "$OUT/benches.log" | cut -c1-150
