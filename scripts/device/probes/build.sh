#!/usr/bin/env bash
# Builds the development probes beside this script into target/probes/ with the toolkit
# scripts/setup.sh provides (CUDA_HOME / CUDA_PATH, its wheel cache, /usr/local/cuda, or nvcc
# on PATH, in that order). Carry target/probes to the GPU machine. Each probe links the
# product's kernels from cuda/ (gemv_* probes include cuda/gemv.cu instead).
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
# Arguments: the probes to build (names without .cu); none: all of them.
srcs=()
for n in "$@"; do srcs+=("scripts/device/probes/$n.cu"); done
[ ${#srcs[@]} -gt 0 ] || srcs=(scripts/device/probes/*.cu)
for src in "${srcs[@]}"; do
  name=$(basename "$src" .cu)
  # Probes named gemv_* include cuda/gemv.cu itself (to reach its internal kernels); pred_*
  # also time the fused GEMM+GELU and fill their own inputs.
  case "$name" in
    gemv_*) product="cuda/runtime.cu cuda/copy.cu cuda/hgemm.cu" ;;
    pred_*) product="cuda/runtime.cu cuda/copy.cu cuda/gemv.cu cuda/hgemm.cu cuda/gemm_gelu.cu
      cuda/fill.cu" ;;
    # midm_pair* and epi_* fill their own inputs; midm_pair and epi_parts include
    # cuda/gemm_gelu.cu itself (to reach the fused functor).
    # square_* fill their own inputs too.
    midm_pair* | epi_* | square_*) product="cuda/runtime.cu cuda/copy.cu cuda/gemv.cu cuda/hgemm.cu cuda/fill.cu" ;;
    *) product="cuda/runtime.cu cuda/copy.cu cuda/gemv.cu cuda/hgemm.cu" ;;
  esac
  # The wheel toolkit keeps its static libraries in lib/, a system one in lib64/.
  # shellcheck disable=SC2086
  "$root/bin/nvcc" -std=c++17 --expt-relaxed-constexpr -O3 -arch=sm_90a -Icuda \
    -L"$root/lib" -L"$root/lib64" "$src" $product -o "target/probes/$name"
  echo "built target/probes/$name"
done
