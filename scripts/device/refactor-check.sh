#!/usr/bin/env bash
# After host- or structure-only changes: the HGEMM / GEMM+GELU and LayerNorm GPU tests, then
# LayerNorm v4 vs v6 interleaved at 4096x4096 in graph timing (v6's programmatic dependent
# launch must still show: v6 faster). Logs to $OUT; the summary is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
{
  $B/tests/gpu_gemm --ignored --test-threads=1
  $B/tests/gpu_memory_bound --ignored --test-threads=1 layernorm
} > "$OUT/gpu-tests.log" 2>&1
$B/roofline bench layernorm --rows 4096 --hidden 4096 --variant v4,v6 --interleave --graph \
  > "$OUT/ln-pdl.log" 2>&1
grep -E "^test |test result|FAILED|panicked" "$OUT/gpu-tests.log"
grep -E "^  layernorm" "$OUT/ln-pdl.log" | cut -c1-110
