#!/usr/bin/env bash
# Mid-M HGEMM probe kernels (scripts/device/probes/midm_pair.cu, MODE "push" by default, "pair"
# or "tile") against v21, plain / fused / unfused, at 128..256 x 4096 x 4096, 500x2040x2056 and
# 256x4096x8192; then (unless SANITIZE=0) compute-sanitizer (memcheck, racecheck, synccheck) over
# its checks and warm-up at the first shape; with MARKS=1 also the pair kernel's phase stamps
# (probes/midm_pair_marks.cu). Build with `scripts/device/probes/build.sh midm_pair
# midm_pair_marks` and carry target/probes/midm_pair (and midm_pair_marks). Logs to $OUT
# (~1 min, ~4 with the sanitizer).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
MODE="${MODE:-push}"
target/probes/midm_pair "${ROUNDS:-200}" "$MODE" 2>&1 | tee "$OUT/midm-$MODE.txt"
[ "${MARKS:-0}" = 1 ] && target/probes/midm_pair_marks 2>&1 | tee "$OUT/marks.txt"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ "${SANITIZE:-1}" = 0 ] && exit 0
for tool in memcheck racecheck synccheck; do
  timeout 200 "$SAN" --tool "$tool" target/probes/midm_pair 0 "$MODE" 1 \
    > "$OUT/midm-$MODE-$tool.txt" 2>&1
  echo "$tool exit=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|all checks|FAILED' \
    "$OUT/midm-$MODE-$tool.txt" | tr '\n' ' ')"
done
