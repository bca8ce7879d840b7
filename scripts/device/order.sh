#!/usr/bin/env bash
# Whether our 8192^3 HGEMM's time depends on what ran just before (the square sweep times it
# right after cuBLAS at 4096^3): v14 at 8192^3 after a cuBLAS run and after rest, with the
# sweep's short warm-up (10 ms) and a long one (500 ms). Logs to $OUT/order.log.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
g="--m 8192 --n 8192 --k 8192 --no-verify"
c4="--m 4096 --n 4096 --k 4096 --no-verify --impl cublas --min-time-ms 300 --max-time-ms 800"
{
for rep in 1 2; do
  echo "# rep $rep: after cuBLAS 4096^3, warm-up 10 ms"
  $B/roofline bench gemm $c4 > /dev/null 2>&1
  $B/roofline bench gemm $g --variant v14 --warmup-ms 10 --min-time-ms 30 --max-time-ms 800
  echo "# rep $rep: after cuBLAS 4096^3, warm-up 500 ms"
  $B/roofline bench gemm $c4 > /dev/null 2>&1
  $B/roofline bench gemm $g --variant v14 --warmup-ms 500 --min-time-ms 30 --max-time-ms 800
  echo "# rep $rep: after 3 s idle, warm-up 10 ms, 2 s of samples"
  sleep 3
  $B/roofline bench gemm $g --variant v14 --warmup-ms 10 --min-time-ms 2000 --max-time-ms 2000 --max-samples 5000
  echo "# rep $rep: cuBLAS 8192^3, warm-up 500 ms"
  $B/roofline bench gemm $g --impl cublas --warmup-ms 500 --min-time-ms 300 --max-time-ms 800
done
} > "$OUT/order.log" 2>&1
grep -E "^# |^  hgemm" "$OUT/order.log" | cut -c1-110
