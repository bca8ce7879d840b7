#!/usr/bin/env bash
# Targeted benchmarks for the performance targets: HGEMM best vs v7 at squares and small M,
# every GEMV variant at the decode shapes, elementwise variants at 1 GiB, LayerNorm, the
# fusion sweep, and the injected-fault path. Logs to $OUT (at most 8 files).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
q="--min-time-ms 50 --max-time-ms 600"
{
for n in 2048 4096 8192; do $B/roofline bench gemm --m $n --n $n --k $n --variant 7,10,11 $q --json; done
for m in 1 16 64 256 1024; do $B/roofline bench gemm --m $m --n 4096 --k 4096 --variant 7,10,11 $q --json; done
for nk in 4096 8192; do for m in 1 4 16; do $B/roofline bench gemv --m $m --n $nk --k $nk --variant all $q --json; done; done
$B/roofline bench gemv --m 1 --n 8192 --k 8192 --variant all --graph $q --json
$B/roofline bench gemv --m 1 --n 4096 --k 4096 --variant all --graph $q --json
$B/roofline bench relu --variant all $q --json
$B/roofline bench gelu --variant 3,4 $q --json
$B/roofline bench layernorm --rows 4096 --hidden 4096 --graph --variant all $q --json
$B/roofline bench layernorm --rows 32768 --hidden 4096 $q --json
} > "$OUT/bench.jsonl" 2> "$OUT/bench.log"
grep -E "TFLOP/s" "$OUT/bench.log" | grep -v "speed of" | cut -c1-120
$B/roofline sweep fusion --out "$OUT/fusion.json" > /dev/null 2> "$OUT/fusion.log" || tail -3 "$OUT/fusion.log"
$B/roofline --debug-inject-fault bench relu --elems 1000 > "$OUT/fault.log" 2>&1; echo "inject-fault exit=$?"; tail -2 "$OUT/fault.log"
