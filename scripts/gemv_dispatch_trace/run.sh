#!/usr/bin/env bash
# Compares the GEMV's host dispatch of a git revision and of the working tree, on a CPU: builds
# cuda/gemv/gemv.cu of each (host code and PTX; the kernels' SASS is not the question here),
# links each with a stub CUDA runtime that records every launch and answers the device queries
# (fake_cudart.cpp), runs every variant over 15 row counts x 15 N x 17 K x 8 alignments, and the
# GEMM family's two slab launchers, on 11 simulated devices, and diffs the launches.
#
# usage: scripts/gemv_dispatch_trace/run.sh OLD_REV [OLD=NEW ...]
#   OLD=NEW pairs map the old build's variant numbers to the working tree's (a renumbering;
#   docs/perf-log.md, "The GEMV family's variant numbers"); without them every variant of the
#   working tree is compared with the same number. Exit 1 when a launch differs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
old_rev=${1:?usage: run.sh OLD_REV [OLD=NEW ...]}
shift
nvcc=${NVCC:-$(command -v nvcc || echo "${ROOFLINE_CUDA_CACHE:-$HOME/.cache/roofline-lab/cuda-13.0}/nvidia/cu13/bin/nvcc")}
inc=$(dirname "$nvcc")/../include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$old_rev" cuda | tar -x -C "$tmp" && mv "$tmp/cuda" "$tmp/cuda-old"
cp -r "$root/cuda" "$tmp/cuda-new"
flags=(-std=c++17 --expt-relaxed-constexpr -DRL_SM90A=1 -gencode=arch=compute_90a,code=compute_90a)
for side in old new; do
  "$nvcc" "${flags[@]}" -I "$tmp/cuda-$side" -c "$tmp/cuda-$side/gemv/gemv.cu" -o "$tmp/$side.o" &
done
g++ -O1 -std=c++17 -I "$inc" -c "$here/fake_cudart.cpp" -o "$tmp/fake.o"
g++ -O1 -std=c++17 -I "$inc" -c "$here/harness.cpp" -o "$tmp/harness.o"
wait
for side in old new; do g++ -o "$tmp/trace-$side" "$tmp/harness.o" "$tmp/fake.o" "$tmp/$side.o" -lpthread; done
if [ $# -gt 0 ]; then
  old_args=("$@")
  new_args=()
  for pair in "$@"; do new_args+=("${pair#*=}"); done
else
  mapfile -t new_args < <(seq 1 "$("$tmp/trace-new" count)")
  old_args=("${new_args[@]}")
fi
norm() { sed -E 's/_GLOBAL__N__[0-9a-f]+_[0-9]+_gemv_cu_[0-9a-f]{8}/ANON/g'; }
fail=0
for cfg in "SMS=132" "SMS=132 CLUSTERS=64" "SMS=132 CLUSTERS=40" "SMS=132 CLUSTERS=0" "SMS=114" \
           "SMS=78 CLUSTERS=39" "SMS=160 CLUSTERS=80" "SMS=132 CC=8" "SMS=132 TMA=0" \
           "SMS=132 OCC=1 SPREAD=0" "SMS=144 CLUSTERS=72 SPREAD=7"; do
  env $cfg GEMM=1 "$tmp/trace-old" "${old_args[@]}" | norm > "$tmp/old.txt"
  env $cfg GEMM=1 "$tmp/trace-new" "${new_args[@]}" | norm > "$tmp/new.txt"
  d=$(diff "$tmp/old.txt" "$tmp/new.txt" | grep -c '^<' || true)
  echo "$cfg: $(wc -l < "$tmp/old.txt") calls, $d differ"
  if [ "$d" -ne 0 ]; then fail=1; diff "$tmp/old.txt" "$tmp/new.txt" | head -6; fi
done
exit $fail
