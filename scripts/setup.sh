#!/usr/bin/env bash
# Installs what building roofline-lab needs, only where it is missing:
#   - a CUDA 13.0 compiler (nvcc + cudart_static) and NVRTC (for --kernel-file), from PyPI
#     wheels pinned to 13.0 so the PTX/SASS they emit loads on driver 580 (CUDA 13.0);
#   - libclang, for bindgen.
# Idempotent: a second run only checks. An existing toolkit (CUDA_HOME, /usr/local/cuda,
# nvcc on PATH) is used as it is. build.rs finds the wheel toolkit on its own afterwards.
set -euo pipefail

CACHE="${ROOFLINE_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roofline-lab/cuda-13.0}"
PINS=(nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88
      nvidia-cuda-cccl==13.0.85   # cccl: <nv/target> and friends, needed by cuda_fp16.h
      nvidia-cuda-nvrtc==13.0.88) # run-time compilation of users' kernels (--kernel-file)

has_nvrtc() { ls "$1"/lib/libnvrtc.so* "$1"/lib64/libnvrtc.so* >/dev/null 2>&1; }

have_toolkit() {
  local root
  for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda "$CACHE/nvidia/cu13"; do
    [ -n "$root" ] && [ -x "$root/bin/nvcc" ] && [ -e "$root/include/nv/target" ] && has_nvrtc "$root" && { echo "$root"; return 0; }
  done
  if command -v nvcc >/dev/null 2>&1; then
    root=$(dirname "$(dirname "$(command -v nvcc)")")
    [ -e "$root/include/nv/target" ] && has_nvrtc "$root" && { echo "$root"; return 0; }
  fi
  return 1
}

if root=$(have_toolkit); then
  echo "setup: CUDA toolkit found at $root"
else
  echo "setup: installing the CUDA 13.0 compiler wheels into $CACHE"
  PY=$(command -v python3 || command -v python) || { echo "setup: python3 with pip is needed to install nvcc" >&2; exit 1; }
  # All wheels share the top-level folder nvidia/, so install them together into a fresh
  # folder and move it into place: pip --target does not merge into an existing one.
  rm -rf "$CACHE.partial" "$CACHE"
  mkdir -p "$(dirname "$CACHE")"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$CACHE.partial" "${PINS[@]}"
  mv "$CACHE.partial" "$CACHE"
  root="$CACHE/nvidia/cu13"
  [ -x "$root/bin/nvcc" ] || { echo "setup: nvcc did not appear at $root/bin/nvcc" >&2; exit 1; }
fi
"$root/bin/nvcc" --version | tail -n 2

# bindgen loads libclang at build time.
if ! ls /usr/lib/llvm-*/lib/libclang.so* /usr/lib/llvm-*/lib/libclang-[0-9]*.so* /usr/lib/*/libclang-[0-9]*.so* >/dev/null 2>&1; then
  echo "setup: installing libclang-dev (for bindgen)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libclang-dev >/dev/null
fi
echo "setup: libclang present"

# rustfmt and clippy for the CI checks.
if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi
echo "setup: done. Now: cargo build --release && cargo test"
