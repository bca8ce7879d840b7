#!/usr/bin/env bash
# GEMM+GELU v19 (the bias staged in shared memory at the start: by the TMA slabs with a bulk
# copy, by the cluster split-K kernels with cp.async): the HGEMM and GEMM+GELU GPU tests
# (every variant), compute-sanitizer over v19's runs, then v18 vs v19 interleaved (fused,
# unfused, plain), cold L2, where the TMA slabs run (16, 64 x 4096^2: pushing (1, 2) clusters;
# 16 x 8192^2: one CTA per slab) and where the split-K clusters run (128, 256, 512 x 4096^2,
# 500 x 2040 x 2056). Logs to $OUT; the comparison is printed last. BENCH_ONLY=1: the
# comparison alone.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
[ -z "${BENCH_ONLY:-}" ] && tests_and_sanitize "variant 19 " gpu_gemm
{
  for s in "--m 256 --n 4096 --k 4096" "--m 64 --n 4096 --k 4096" "--m 128 --n 4096 --k 4096" \
    "--m 512 --n 4096 --k 4096" "--m 500 --n 2040 --k 2056" "--m 16 --n 4096 --k 4096" \
    "--m 16 --n 8192 --k 8192"; do
    $B/roofline bench gemm-gelu $s --impl fused,unfused,plain --variant v18,v19 --interleave
  done
} > "$OUT/bench.log" 2>&1
grep -E "x the time" "$OUT/bench.log" | cut -c1-120
