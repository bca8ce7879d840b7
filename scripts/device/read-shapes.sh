#!/usr/bin/env bash
# The read-shape probe (scripts/device/probes/read_shapes.cu) at 8192^2 and 4096^2: what grid,
# bytes in flight and walk a streaming read of GEMV weights needs to match the plain read.
# Carry target/probes/read_shapes. Logs to $OUT.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
for n in 8192 4096; do
  target/probes/read_shapes $n 2>&1 | tee -a "$OUT/read-shapes.txt"
done
