#!/usr/bin/env bash
# Mid-M tile probe (target/probes/midm_tiles, built by probes/build.sh) and LayerNorm v4 vs
# v6 (programmatic dependent launch) at 4096x4096, interleaved, graph and one launch, cold.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
target/probes/midm_tiles "${ROUNDS:-150}" > "$OUT/midm-tiles.log" 2>&1 || echo "probe failed: $(tail -3 "$OUT/midm-tiles.log")"
cat "$OUT/midm-tiles.log"
{
  $B/tests/gpu_memory_bound --ignored --test-threads=1 layernorm
  for mode in --graph --launch; do
    for rows in 4096 32768; do
      $B/roofline bench layernorm --rows $rows --hidden 4096 --variant v4,v6 --interleave $mode
    done
  done
} > "$OUT/ln-pdl.log" 2>&1
grep -E "test result|FAILED|panicked|layernorm +v" "$OUT/ln-pdl.log" | cut -c1-120
