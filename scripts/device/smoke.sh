#!/usr/bin/env bash
# First look on a GPU machine: device info, every GPU test, the ceilings twice (they must
# agree within 3%), and the HGEMM progression at 4096^3. Logs go to $OUT (or ./out).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/nvidia-smi.txt"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
$B/roofline info 2>&1 | tee "$OUT/info.txt"
$B/run-gpu-tests.sh 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "^test |test result|panicked|FAILED|==" 
$B/roofline ceilings --refresh --json > "$OUT/ceilings-1.json" 2> "$OUT/ceilings-1.log"
$B/roofline ceilings --refresh 2>&1 | tee "$OUT/ceilings-2.txt"
$B/roofline bench gemm --variant all --impl wmma,cublas --out "$OUT/gemm-4096.json" 2>&1 | tee "$OUT/gemm-4096.log" | grep -vE "^\s*$"
