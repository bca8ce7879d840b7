# Sourced on the GPU machine: makes cuBLAS/cuBLASLt (CUDA 13) loadable by the bundle.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
py_cublas=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null || true)
[ -n "$py_cublas" ] && [ -d "$py_cublas" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$py_cublas"
export LD_LIBRARY_PATH
export ROOFLINE_CACHE_DIR="${ROOFLINE_CACHE_DIR:-/tmp/roofline-cache}"
