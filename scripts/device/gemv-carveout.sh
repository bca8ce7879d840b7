#!/usr/bin/env bash
# GEMV v19's one launch after the read / itself / an empty kernel under four preferred
# shared-memory carveouts of its kernels (scripts/device/probes/gemv_carveout.cu), 4096², 16
# and 8 rows, two runs. Build with `scripts/device/probes/build.sh gemv_carveout` and carry
# target/probes/gemv_carveout. Logs to $OUT (~1 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for run in 1 2; do
  echo "run $run"
  target/probes/gemv_carveout 600
done 2>&1 | tee "$OUT/gemv-carveout.txt"
