#!/usr/bin/env bash
# Every bench subcommand once at a small odd size with minimal sampling, plus the GPU CLI
# tests: a quick check that the command paths work on the GPU machine after CLI changes.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/device/env.sh
B=bundle/roofline
q="--min-samples 3 --max-time-ms 200 --warmup-ms 5"
status=0
for args in "bench copy --bytes 4098 --variant all" "bench copy --bytes 64MiB" \
  "bench gemm --m 129 --n 264 --k 72 --variant all" "bench gemm-gelu --m 33 --n 520 --k 136" \
  "bench gemv --m 3 --n 4100 --k 777 --variant all" "bench relu --elems 4099 --variant all" \
  "bench gelu --elems 1000000 --gelu erf" "bench layernorm --rows 9 --hidden 4099 --variant all"; do
  if $B $args $q --json > /dev/null 2> /tmp/cli-smoke.err; then echo "ok    $args"
  else echo "FAIL  $args: $(tail -2 /tmp/cli-smoke.err)"; status=1; fi
done
export ROOFLINE_BIN=$PWD/$B
bundle/tests/cli_gpu_presence --ignored --test-threads=1 2>&1 | grep -E "^test |test result" || status=1
exit $status
