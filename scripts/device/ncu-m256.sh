#!/usr/bin/env bash
# Nsight Compute at 256x4096x4096: which kernel cuBLAS (GEMM) and cuBLASLt (GEMM + bias + GELU)
# run there (name, grid, cluster, registers, shared memory) and how busy they keep the SMs,
# beside our plain and fused best kernels. Needs only bundle/roofline. Logs to $OUT (~30 s).
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
one="--m 256 --n 4096 --k 4096 --min-samples 1 --max-samples 1 --warmup-ms 0 --min-time-ms 0 --no-verify"
for what in "gemm --impl cublas" "gemm-gelu --impl cublaslt" "gemm --impl wmma" \
  "gemm-gelu --impl fused"; do
  echo "######## $what"
  # The GEMM kernels only (the run fills many buffer sets first): cuBLAS's names carry gemm,
  # nvjet, xmma or cutlass; ours and the bias + GELU kernel end in _kernel.
  ncu_run --kernel-name "regex:gemm|nvjet|xmma|cutlass|kernel|Kernel" --launch-count 3 \
    $B/roofline bench $what $one 2>&1
done > "$OUT/ncu-m256.txt"
grep -E "########|^  [a-zA-Z_].*\(|Duration|Registers Per|Grid Size|Cluster Size|Dynamic Shared|Shared Memory Configuration Size|Compute \(SM\) Throughput|Warp Cycles Per Issued|Achieved Occupancy" \
  "$OUT/ncu-m256.txt" | cut -c1-160
