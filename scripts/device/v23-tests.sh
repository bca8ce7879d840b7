#!/usr/bin/env bash
# GEMM+GELU v23's bundle on the GPU: the test executables its change can reach (cli_gpu_presence,
# gpu_copy, gpu_gemm; gpu_memory_bound runs kernels v23 leaves untouched), compute-sanitizer
# (4 tools) over v23's runs, then the probe's run PR (MODE=parts scripts/device/epi-parts.sh;
# carry target/probes/epi_parts). Logs to $OUT (~4 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
status=0
for t in cli_gpu_presence gpu_copy gpu_gemm; do
  echo "== tests/$t"
  ROOFLINE_BIN="$PWD/$B/roofline" "$B/tests/$t" --ignored --test-threads=1 || status=1
done > "$OUT/tests.log" 2>&1
echo "gpu tests exit=$status"
grep -E "test result|FAILED|panicked" "$OUT/tests.log" | sort | uniq -c
OUT=/tmp/san SANITIZE_FILTER="variant 23 " SANITIZE_TIMEOUT_S=120 \
  bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1
echo "sanitize exit=$?"
tail -6 "$OUT/sanitize.log"
if [ -x target/probes/epi_parts ]; then
  MODE=parts ROUNDS=3 bash scripts/device/epi-parts.sh > /dev/null 2>&1
  grep -E 'differ' "$OUT/epi-parts.txt" | grep -cv ' 0 of' | sed 's/^/probe checks failing: /'
  grep -E '^(plain|tanh|erf)' "$OUT/epi-parts.txt"
fi
