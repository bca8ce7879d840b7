#!/usr/bin/env bash
# Builds the development probes beside this script into target/probes/ with the toolkit
# scripts/setup.sh provides (CUDA_HOME / CUDA_PATH, its wheel cache, /usr/local/cuda, or nvcc
# on PATH, in that order). Carry target/probes to the GPU machine. Each probe includes the
# product's kernels from cuda/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CACHE="${ROOFLINE_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roofline-lab/cuda-13.0}"
root=""
for r in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$CACHE/nvidia/cu13" /usr/local/cuda; do
  if [ -n "$r" ] && [ -x "$r/bin/nvcc" ]; then root="$r"; break; fi
done
if [ -z "$root" ] && command -v nvcc >/dev/null 2>&1; then
  root=$(dirname "$(dirname "$(command -v nvcc)")")
fi
[ -n "$root" ] || { echo "probes/build.sh: no nvcc; run scripts/setup.sh first" >&2; exit 1; }
mkdir -p target/probes
for src in scripts/device/probes/*.cu; do
  name=$(basename "$src" .cu)
  # The wheel toolkit keeps its static libraries in lib/, a system one in lib64/.
  "$root/bin/nvcc" -std=c++17 -O3 -arch=sm_90a -Icuda -L"$root/lib" -L"$root/lib64" "$src" \
    cuda/runtime.cu cuda/gemv.cu cuda/hgemm.cu -o "target/probes/$name"
  echo "built target/probes/$name"
done
