#!/usr/bin/env bash
# Builds the development probes beside this script into target/probes/ with the toolkit
# build.rs uses (setup.sh's wheels unless CUDA_HOME says otherwise). Carry target/probes to
# the GPU machine. Each probe includes the product's kernels from cuda/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CUDA_ROOT="${CUDA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/roofline-lab/cuda-13.0/nvidia/cu13}"
mkdir -p target/probes
for src in scripts/device/probes/*.cu; do
  name=$(basename "$src" .cu)
  "$CUDA_ROOT/bin/nvcc" -std=c++17 -O3 -arch=sm_90a -Icuda -L"$CUDA_ROOT/lib" "$src" \
    cuda/runtime.cu cuda/gemv.cu cuda/hgemm.cu -o "target/probes/$name"
  echo "built target/probes/$name"
done
