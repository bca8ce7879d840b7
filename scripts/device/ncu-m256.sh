#!/usr/bin/env bash
# Nsight Compute at 256x4096x4096: which kernel cuBLAS (GEMM) and cuBLASLt (GEMM + bias + GELU)
# run there (name, grid, cluster, registers, shared memory) and how busy they keep the SMs,
# beside our plain and fused best kernels. Needs only bundle/roofline. Logs to $OUT (~2 min).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
one="--m 256 --n 4096 --k 4096 --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
for what in "gemm --impl cublas" "gemm-gelu --impl cublaslt" "gemm --impl wmma" \
  "gemm-gelu --impl fused"; do
  echo "######## $what"
  # Every kernel of the run but the input fills: the GEMM (and, for cuBLASLt, any helper).
  ncu_run --kernel-name-base demangled --kernel-name "regex:^(?!.*fill).*" --launch-count 4 \
    $B/roofline bench $what $one 2>&1
done > "$OUT/ncu-m256.txt"
grep -E "########|^  [a-zA-Z_].*\(|Duration|Registers Per|Grid Size|Cluster Size|Dynamic Shared|Shared Memory Configuration Size|Compute \(SM\) Throughput|Warp Cycles Per Issued|Achieved Occupancy" \
  "$OUT/ncu-m256.txt" | cut -c1-160
