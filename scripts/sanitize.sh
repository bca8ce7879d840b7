#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over every registered kernel
# family and every variant of ours, at the family's own small check shapes (from
# `roofline list --json`), plus hand-picked runs for paths that open only at larger shapes, on
# the GPU machine (no cargo there: it runs the bundle, see scripts/bundle.sh), and the example
# user kernels and plugin beside ours. Only our
# implementations are launched (the family's our_impls); cuBLAS runs only as the verification
# reference under memcheck and initcheck (racecheck and synccheck run with --no-verify, so no
# library kernel is judged there).
#
# Usage:  scripts/sanitize.sh            (from anywhere; logs go to ${OUT:-sanitizer-out})
# Env:    ROOFLINE_BIN        the binary (default bundle/roofline, else target/release/roofline)
#         COMPUTE_SANITIZER   the compute-sanitizer executable (default: searched for)
#         SANITIZE_TOOLS      subset of tools, e.g. "memcheck racecheck" (default: all four)
#         SANITIZE_TIMEOUT_S  limit per sanitized run (default 200)
#         SANITIZE_SHARDS     processes per tool, each taking every Nth run (default 1;
#                             racecheck, the slowest tool, takes 3x as many: 3 by default)
#         SANITIZE_FILTER     only the runs whose command line matches this grep -E pattern
#                             (e.g. "variant 1[34]" after a change to those variants)
# Output: one log per tool ($OUT/<tool>.log), $OUT/ceilings.log, $OUT/summary.txt; the summary
#         table (tool, runs, errors, failed runs) is printed last. Exit 1 if any sanitizer
#         error or failed run, 2 if the tools could not be set up.
# The four tools run in parallel (one GPU is enough: each process is small), racecheck in 3
# shards as it is the slowest: in S33e (one shard each) memcheck, initcheck and synccheck
# finished 152 runs within 370 s while racecheck had done 86.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. scripts/device/env.sh
export CUDA_MODULE_LOADING=LAZY

OUT="${OUT:-sanitizer-out}"
mkdir -p "$OUT"
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}
RUN_TIMEOUT=${SANITIZE_TIMEOUT_S:-200}

die() { echo "sanitize.sh: $*" >&2; exit 2; }

# ---- the binary
B="${ROOFLINE_BIN:-}"
if [ -z "$B" ]; then
  for c in bundle/roofline target/release/roofline; do
    [ -x "$c" ] && { B="$c"; break; }
  done
fi
[ -n "$B" ] && [ -x "$B" ] || die "no roofline binary: run scripts/bundle.sh or set ROOFLINE_BIN"
B="$(cd "$(dirname "$B")" && pwd)/$(basename "$B")"

# ---- compute-sanitizer
find_sanitizer() {
  local c
  for c in "${COMPUTE_SANITIZER:-}" "$(command -v compute-sanitizer 2>/dev/null || true)" \
           /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
           /usr/local/cuda-*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer; do
    [ -n "$c" ] && [ -x "$c" ] && [ ! -d "$c" ] && { echo "$c"; return 0; }
  done
  # pip wheels (nvidia-cuda-sanitizer-api): .../site-packages/nvidia/**/compute-sanitizer
  local roots
  roots=$(python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null || true)
  for r in $roots; do
    c=$(find "$r" -maxdepth 4 -type f -name compute-sanitizer -perm -u+x 2>/dev/null | head -1)
    [ -n "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}
CS=$(find_sanitizer) || die "compute-sanitizer not found: set COMPUTE_SANITIZER or put it on PATH"
echo "binary:            $B"
echo "compute-sanitizer: $CS ($("$CS" --version 2>/dev/null | grep -Eo '[0-9]{4}\.[0-9.]+' | head -1))"

# ---- ceilings once, unsanitized: every bench places its result on them (cached afterwards)
if ! "$B" ceilings >"$OUT/ceilings.log" 2>&1; then
  cat "$OUT/ceilings.log" >&2
  die "roofline ceilings failed (see $OUT/ceilings.log): no GPU, or the bundle does not run here"
fi

# ---- the runs: one bench per line, our implementations only, every variant.
# First every registered family at each of its check shapes up to SMALL_BYTES of work-model
# traffic (the small, odd ones), read from the registry; then the hand-picked larger shapes.
MIN="--hot --min-samples 1 --max-samples 2 --min-time-ms 0 --warmup-ms 0 --max-time-ms 1000"
SMALL_BYTES=${SANITIZE_SMALL_BYTES:-4194304}
mapfile -t REGISTRY_RUNS < <("$B" list --json | python3 -c '
import json, sys
for f in json.load(sys.stdin):
    for s in f["check_shapes"]:
        if s["bytes"] <= float(sys.argv[1]):
            print("bench %s --impl %s --variant all %s" % (f["name"], ",".join(f["our_impls"]), s["flags"]))
' "$SMALL_BYTES")
[ "${#REGISTRY_RUNS[@]}" -gt 0 ] || die "could not read the families from roofline list --json"
RUNS=(
  "${REGISTRY_RUNS[@]}"
  "bench gelu --variant all --elems 4099 --gelu erf"
  "bench gemm_bias_gelu --impl fused,unfused --variant all --m 33 --n 17 --k 40 --gelu erf"
  "bench layernorm --variant 4 --rows 5 --hidden 2056"
  "bench layernorm --variant 6 --rows 5 --hidden 2056"
  # The GEMM family's paths that open only at larger shapes (variant numbers of cuda/gemm/; the
  # fused family's v1..v5 run HGEMM v8..v12's kernels with their epilogue).
  # HGEMM v6's 256x128 tile (one per SM: a 2000x1928 output), plain; fused v1 parks it whole
  # (rolled loop, both forms), v3 in 4 row parts (tanh; the edge tiles whole)
  "bench hgemm --impl ours --variant 6 --m 2000 --n 1928 --k 72"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 2000 --n 1928 --k 72"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 2000 --n 1928 --k 72 --gelu erf"
  "bench gemm_bias_gelu --impl fused,unfused --variant 3 --m 2000 --n 1928 --k 72"
  # the generic tiled path of the fused epilogue (N odd), erf form
  "bench gemm_bias_gelu --impl fused --variant 1 --m 129 --n 263 --k 72 --gelu erf"
  # HGEMM v7's cluster split-K: the 128x128 tile of 4 warps split 2 (256x2048x2048) and of 8
  # warps split 2 (64 tiles, every dimension off the tile), plain and fused (v1: the bias
  # staged by cp.async before the prologue; erf too)
  "bench hgemm --impl ours --variant 7 --m 256 --n 2048 --k 2048"
  "bench hgemm --impl ours --variant 7 --m 500 --n 2040 --k 2056"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 256 --n 2048 --k 2048"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 500 --n 2040 --k 2056"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 500 --n 2040 --k 2056 --gelu erf"
  # HGEMM v8 / fused v1: the GEMV's slabs with the epilogue at their store. Register slabs: one
  # row direct, W-as-A in a cluster, 16-row groups, 2..8 rows in GEMV v10's loop (in a cluster
  # and without). TMA slabs (9..64 rows, N and K multiples of 8): 2 m-tiles in a cluster, 3 in
  # a cluster with a partial slab and stage, 4 without a cluster (the last slab 8 columns wide:
  # a 16-byte bias copy), 1 m-tile with K = 8 in a cluster (a CTA without stages still copies
  # its bias); the clusters' sums sent by st.async
  "bench gemm_bias_gelu --impl fused --variant 1 --m 1 --n 8200 --k 130"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 5 --n 2120 --k 77"
  "bench hgemm --impl ours --variant 8 --m 11 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 6 --n 4104 --k 1040"
  "bench hgemm --impl ours --variant 8 --m 3 --n 8200 --k 1024"
  "bench hgemm --impl ours --variant 8 --m 17 --n 2560 --k 2048"
  "bench hgemm --impl ours --variant 8 --m 40 --n 4104 --k 1000"
  "bench hgemm --impl ours --variant 8 --m 64 --n 8200 --k 160"
  "bench hgemm --impl ours --variant 8 --m 12 --n 4104 --k 77"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 17 --n 2560 --k 2048"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 40 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 64 --n 8200 --k 160"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 16 --n 4104 --k 8"
  "bench gemm_bias_gelu --impl fused --variant 1 --m 64 --n 2560 --k 2048"
  # HGEMM v9 / fused v2: the 128x64 wgmma tile (mid M, where v7 splits K): partial row and
  # column tiles and a K tail
  "bench hgemm --impl ours --variant 9 --m 500 --n 2040 --k 2056"
  "bench gemm_bias_gelu --impl fused --variant 2 --m 200 --n 4096 --k 1096"
  "bench hgemm --impl ours --variant 9 --m 256 --n 1960 --k 2048"
  # HGEMM v10 / fused v3: the few-row wgmma tile, one kernel for both families (bias null for
  # the plain GEMM): K split over a cluster of 4 (partial row, column and k-tiles, a short last
  # split), of 2 and unsplit (129 tiles, a partial one), erf too
  "bench hgemm --impl ours --variant 10 --m 40 --n 1096 --k 2056"
  "bench gemm_bias_gelu --impl fused,unfused --variant 3 --m 40 --n 1096 --k 2056"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 3 --m 17 --n 2560 --k 2048"
  "bench hgemm --impl ours --variant 10 --m 64 --n 8200 --k 160"
  # HGEMM v11 / fused v4: the 256x128 tile's whole tiles on the lean loop (one ring of k-tiles,
  # and two), plain and fused (its opaque last stage; both forms)
  "bench hgemm --impl ours --variant 11 --m 2048 --n 2048 --k 256"
  "bench hgemm --impl ours --variant 11 --m 2048 --n 2048 --k 512"
  "bench gemm_bias_gelu --impl fused,unfused --variant 4 --m 2048 --n 2048 --k 256"
  "bench gemm_bias_gelu --impl fused --variant 4 --m 2048 --n 2048 --k 512"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 4 --m 2048 --n 2048 --k 256"
  # HGEMM v12 / fused v5: the persistent warp-specialized wgmma kernel (clusters of 2 sharing B
  # by TMA multicast): every dimension off the tile with a K tail (one tile per CTA); an odd
  # number of tile rows (a CTA wholly below M), 2 tiles for some clusters, K = 72; plain and
  # fused (both forms)
  "bench hgemm --impl ours --variant 12 --m 1000 --n 4000 --k 1000"
  "bench hgemm --impl ours --variant 12 --m 2056 --n 2056 --k 72"
  "bench gemm_bias_gelu --impl fused,unfused --variant 5 --m 2056 --n 2056 --k 72"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 5 --m 1000 --n 4000 --k 1000"
  # HGEMM v13 / fused v6 / residual v6: the kernel at each tile width (128 x 64, 128, 192, 256)
  "bench hgemm --impl ours --variant 13 --m 777 --n 1000 --k 72"
  "bench hgemm --impl ours --variant 13 --m 1000 --n 2040 --k 1000"
  "bench hgemm --impl ours --variant 13 --m 777 --n 3000 --k 520"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 6 --m 777 --n 3000 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 6 --m 200 --n 4104 --k 136"
  "bench gemm_residual --impl ours --variant 6 --m 1000 --n 2040 --k 1000"
  # HGEMM v14 / fused v7 / residual v7: the same widths, stored through TMA (M, N off the boxes)
  "bench hgemm --impl ours --variant 14 --m 777 --n 1000 --k 72"
  "bench hgemm --impl ours --variant 14 --m 1000 --n 2040 --k 1000"
  "bench hgemm --impl ours --variant 14 --m 777 --n 3000 --k 520"
  "bench hgemm --impl ours --variant 14 --m 2056 --n 2056 --k 72"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 7 --m 777 --n 3000 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 7 --m 1000 --n 4000 --k 1000"
  "bench gemm_residual --impl ours --variant 7 --m 1000 --n 4000 --k 1000"
  "bench gemm_residual --impl ours --variant 7 --m 200 --n 4104 --k 136"
  # HGEMM v15 / fused v8 / residual v8: tiles cut along K (Stream-K): the partial sums through
  # global memory, their flags, the owner's gather (128 wide, ~5 units a tile, M, N, K off the
  # tile; a CTA wholly below M; 192 wide)
  "bench hgemm --impl ours --variant 15 --m 200 --n 2040 --k 1000"
  "bench hgemm --impl ours --variant 15 --m 300 --n 2048 --k 768"
  "bench hgemm --impl ours --variant 15 --m 640 --n 7168 --k 2048"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 8 --m 200 --n 2040 --k 1000"
  "bench gemm_residual --impl ours --variant 8 --m 300 --n 2048 --k 768"
  # HGEMM v16 / fused v9 / residual v9: the 128x256 tile stored in two halves (whole tiles with
  # M, N, K off the tile; cut tiles)
  "bench hgemm --impl ours --variant 16 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 9 --m 1000 --n 4000 --k 1000"
  "bench gemm_residual --impl ours --variant 9 --m 300 --n 12800 --k 1024"
  # HGEMM v17 / fused v10 / residual v10: the pingpong tile (M, N, K off the tile; an odd
  # number of tile rows and 2 k-tiles; 9 k-tiles, the ring wrapping between the warpgroups'
  # tiles; K = 8 and some clusters with one tile, the second warpgroup idle)
  "bench hgemm --impl ours --variant 17 --m 1000 --n 4000 --k 1000"
  "bench hgemm --impl ours --variant 17 --m 2056 --n 2056 --k 72"
  "bench gemm_bias_gelu --impl fused --variant 10 --m 1536 --n 8192 --k 520"
  "bench gemm_residual --impl ours --variant 10 --m 333 --n 7000 --k 8"
  # residual v11: R staged by cp.async into the TMA store's staging (M, N off the tile with a K
  # tail and tiles after the first; K = 8, the copy at the tile's only k-tile; 192 wide)
  "bench gemm_residual --impl ours --variant 11 --m 1000 --n 4000 --k 1000"
  "bench gemm_residual --impl ours --variant 11 --m 333 --n 7000 --k 8"
  "bench gemm_residual --impl ours --variant 11 --m 777 --n 3000 --k 520"
  # HGEMM v18: v16's halves on whole tiles (M, N, K off the 128x256 tile; a K tail of 8)
  "bench hgemm --impl ours --variant 18 --m 1000 --n 4000 --k 1000"
  "bench hgemm --impl ours --variant 18 --m 2056 --n 4096 --k 72"
  # fused v11 (v7 on v18): the functor and store in halves (M, N, K off the tile; erf, K = 72)
  "bench gemm_bias_gelu --impl fused --variant 11 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 11 --m 2056 --n 4096 --k 72"
  # HGEMM v19: 128x64 pairs along N, A multicast (odd tile rows and columns, a CTA right of N,
  # K tail; K = 8; M < 128 with two tiles per cluster)
  "bench hgemm --impl ours --variant 19 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 19 --m 136 --n 4096 --k 8"
  "bench hgemm --impl ours --variant 19 --m 100 --n 16384 --k 200"
  # fused v12 (v11 on v19): the functor on the pairs' tiles, a column past N (bias unread), erf;
  # v19 and fused v12 in bf16
  "bench gemm_bias_gelu --impl fused --variant 12 --m 300 --n 2056 --k 520"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 12 --m 100 --n 16384 --k 200"
  "bench hgemm --impl ours --variant 19 --dtype bf16 --m 300 --n 2056 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 12 --dtype bf16 --m 136 --n 4096 --k 8"
  # HGEMM v20: v19's pairs with the descriptors moved on by adds (v19's edge shapes; the
  # 8-stage ring wrapping 8 times a tile at 256x4096x4096)
  "bench hgemm --impl ours --variant 20 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 20 --m 136 --n 4096 --k 8"
  "bench hgemm --impl ours --variant 20 --m 256 --n 4096 --k 4096"
  # HGEMM v21: v18 with the second half staged in the held ring stage (every dimension off the
  # tile; a K tail of 8; one k-tile a tile, so the held stage goes back at the only k-tile)
  "bench hgemm --impl ours --variant 21 --m 1000 --n 4000 --k 1000"
  "bench hgemm --impl ours --variant 21 --m 2056 --n 4096 --k 72"
  "bench hgemm --impl ours --variant 21 --m 2048 --n 4096 --k 64"
  "bench gemm_bias_gelu --impl fused --variant 13 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 13 --m 2056 --n 4096 --k 72"
  # v21 and fused v13 in bf16: the held stage in bf16 (every dimension off the tile; K tail)
  "bench hgemm --impl ours --variant 21 --dtype bf16 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 13 --dtype bf16 --m 2056 --n 4096 --k 72"
  # HGEMM v22 / fused v14: v21 with the lean descriptors at every width (v13's shapes for the
  # 128 x 64 / 128 / 192 widths, v21's for the 256 one: a K tail of 8, one k-tile a tile)
  "bench hgemm --impl ours --variant 22 --m 777 --n 1000 --k 72"
  "bench hgemm --impl ours --variant 22 --m 1000 --n 2040 --k 1000"
  "bench hgemm --impl ours --variant 22 --m 777 --n 3000 --k 520"
  "bench hgemm --impl ours --variant 22 --m 2056 --n 4096 --k 72"
  "bench hgemm --impl ours --variant 22 --m 2048 --n 4096 --k 64"
  "bench gemm_bias_gelu --impl fused --variant 14 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 14 --m 777 --n 3000 --k 520"
  # HGEMM v23 / fused v15: the lean 64-wide tile at mid M (an odd number of tile rows, a CTA
  # wholly below M, a K tail; 200 rows: the pair's second tile partly past M; K = 8)
  "bench hgemm --impl ours --variant 23 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 23 --m 200 --n 4104 --k 136"
  "bench hgemm --impl ours --variant 23 --dtype bf16 --m 136 --n 4096 --k 8"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 15 --m 300 --n 2056 --k 520"
  # HGEMM v24 / fused v16: each tile's store under the next tile's first k-tiles (several
  # tiles a CTA at the 256 width with K = 72 and a K tail, 64 (one k-tile a tile) and 8; the
  # 192 width with N off its boxes; the 64 width at mid M; the fused forms, one in bf16)
  "bench hgemm --impl ours --variant 24 --m 2056 --n 4096 --k 72"
  "bench hgemm --impl ours --variant 24 --m 2048 --n 4096 --k 64"
  "bench hgemm --impl ours --variant 24 --m 4096 --n 4096 --k 8"
  "bench hgemm --impl ours --variant 24 --m 777 --n 3000 --k 520"
  "bench hgemm --impl ours --variant 24 --m 300 --n 2056 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 16 --m 2056 --n 4096 --k 200"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 16 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 16 --dtype bf16 --m 2056 --n 4096 --k 72"
  # HGEMM v25: the stages released once per warpgroup, at each width (64 at mid M with a CTA
  # wholly below M, 192 with N off its boxes, 128 with K = 1000, 256 several tiles a CTA and
  # one k-tile a tile)
  "bench hgemm --impl ours --variant 25 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 25 --m 777 --n 3000 --k 520"
  "bench hgemm --impl ours --variant 25 --m 1000 --n 2040 --k 1000"
  "bench hgemm --impl ours --variant 25 --m 2056 --n 4096 --k 72"
  "bench hgemm --impl ours --variant 25 --m 2048 --n 4096 --k 64"
  # HGEMM v26: the 64 x 128 pingpong tile at mid M (a CTA wholly below M, N off the tile)
  "bench hgemm --impl ours --variant 26 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 26 --m 200 --n 4040 --k 136"
  # HGEMM v27: the split-K pair (two k-tiles, one each; M and N off the tile with a K tail; a
  # CTA partly below M)
  "bench hgemm --impl ours --variant 27 --m 256 --n 4096 --k 72"
  "bench hgemm --impl ours --variant 27 --m 200 --n 4040 --k 520"
  "bench hgemm --impl ours --variant 27 --m 130 --n 4096 --k 1000"
  # HGEMM v28: B prefetched into L2 ahead of the ring (the prefetch past K's end skipped; a K
  # tail; the 64 and 256 widths)
  "bench hgemm --impl ours --variant 28 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 28 --m 2056 --n 4096 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 17 --m 300 --n 2056 --k 520"
  # HGEMM v29: B's boxes in k-row slices, one per CTA of the pair (the 64-wide tile with a K
  # tail, and with K = 40, the second slice partly past K; the 192-wide tile's three boxes)
  "bench hgemm --impl ours --variant 29 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 29 --m 200 --n 4104 --k 40"
  "bench hgemm --impl ours --variant 29 --m 777 --n 3000 --k 520"
  # HGEMM v30: the tensor maps prefetched at the start (64- and 256-wide tiles)
  "bench hgemm --impl ours --variant 30 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 30 --m 2056 --n 4096 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 18 --m 300 --n 2056 --k 520"
  # HGEMM v31: the CTA leaves once its last stores have read the staging (64- and 256-wide)
  "bench hgemm --impl ours --variant 31 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 31 --m 2056 --n 4096 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 19 --m 300 --n 2056 --k 520"
  # HGEMM v32: the producer's tail for the cluster's last meeting (the 64-wide tile with a K
  # tail; K = 8, one k-tile, fewer loads than stages; the 256-wide tile's held stage released
  # at the end, several tiles a CTA)
  "bench hgemm --impl ours --variant 32 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 32 --m 333 --n 7000 --k 8"
  "bench hgemm --impl ours --variant 32 --m 2056 --n 4096 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 20 --m 300 --n 2056 --k 520"
  "bench hgemm --impl ours --variant 32 --dtype bf16 --m 2056 --n 4096 --k 72"
  # GEMM+bias+GELU v21: the bias in registers from the tile's start (N off the tile: the pairs
  # past N read nothing; the 256-wide tile, several tiles a CTA; bf16)
  "bench gemm_bias_gelu --impl fused --variant 21 --m 300 --n 2056 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 21 --m 2056 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 21 --dtype bf16 --m 2056 --n 4096 --k 72"
  # GEMM+bias+GELU v22: the epilogue warps (several tiles a CTA at the 256-wide tile: the held
  # stage released by them; a K of one k-tile; N off the tile; erf; bf16)
  "bench gemm_bias_gelu --impl fused --variant 22 --m 4100 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 22 --m 4096 --n 4096 --k 64"
  "bench gemm_bias_gelu --impl fused --variant 22 --m 3000 --n 2056 --k 520 --gelu erf"
  "bench gemm_bias_gelu --impl fused --variant 22 --dtype bf16 --m 4100 --n 4096 --k 200"
  # GEMM+bias+GELU v23: v22 with the held half by the consumers (several 256-wide tiles a CTA;
  # bf16)
  "bench gemm_bias_gelu --impl fused --variant 23 --m 4100 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 23 --dtype bf16 --m 4100 --n 4096 --k 200"
  # GEMM+bias+GELU v24 (best): v23 at a wide tile, v21 at a narrow one (256 rows, the 64-wide
  # tile), erf; bf16
  "bench gemm_bias_gelu --impl fused --variant 24 --m 4100 --n 4104 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 24 --m 256 --n 4104 --k 520 --gelu erf"
  "bench gemm_bias_gelu --impl fused --variant 24 --dtype bf16 --m 3000 --n 4096 --k 200"
  # GEMM+bias+GELU v25: the last tile staggered (one tile a CTA; three k-tiles, the fewest that
  # stagger; several tiles a CTA, erf; the 192-wide tile in bf16)
  "bench gemm_bias_gelu --impl fused --variant 25 --m 2040 --n 2056 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 25 --m 2048 --n 2048 --k 136"
  "bench gemm_bias_gelu --impl fused --variant 25 --m 4100 --n 4104 --k 1000 --gelu erf"
  "bench gemm_bias_gelu --impl fused --variant 25 --dtype bf16 --m 256 --n 11008 --k 520"
  # v22 and fused v14 in bf16 (best's forms): the lean descriptors in bf16 at two widths
  "bench hgemm --impl ours --variant 22 --dtype bf16 --m 777 --n 3000 --k 520"
  "bench hgemm --impl ours --variant 22 --dtype bf16 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 14 --dtype bf16 --m 2056 --n 4096 --k 72"
  # v18 and fused v11 in bf16: the halves in bf16 (every dimension off the tile; K tail)
  "bench hgemm --impl ours --variant 18 --dtype bf16 --m 1000 --n 4000 --k 1000"
  "bench gemm_bias_gelu --impl fused --variant 11 --dtype bf16 --m 2056 --n 4096 --k 72"
  # GEMM+bias+residual (one functor, every path reads R at its row and column): v1's parked
  # tile, split-K (4 and 8 warps), register slabs (one row, 2..8 rows), TMA slabs (2 and 4
  # m-tiles; K = 8), the generic tiles (N odd); v2's wgmma tile; v3's few-row tile split 4 and
  # unsplit; v4's lean loop
  "bench gemm_residual --impl ours --variant 1 --m 2000 --n 1928 --k 72"
  "bench gemm_residual --impl ours --variant 1 --m 256 --n 2048 --k 2048"
  "bench gemm_residual --impl ours --variant 1 --m 500 --n 2040 --k 2056"
  "bench gemm_residual --impl ours --variant 1 --m 1 --n 8200 --k 130"
  "bench gemm_residual --impl ours --variant 1 --m 6 --n 4104 --k 1040"
  "bench gemm_residual --impl ours --variant 1 --m 17 --n 2560 --k 2048"
  "bench gemm_residual --impl ours --variant 1 --m 64 --n 2560 --k 2048"
  "bench gemm_residual --impl ours --variant 1 --m 16 --n 4104 --k 8"
  "bench gemm_residual --impl ours --variant 1 --m 129 --n 263 --k 72"
  "bench gemm_residual --impl ours --variant 2 --m 200 --n 4096 --k 1096"
  "bench gemm_residual --impl ours --variant 3 --m 40 --n 1096 --k 2056"
  "bench gemm_residual --impl ours --variant 3 --m 64 --n 8200 --k 160"
  "bench gemm_residual --impl ours --variant 4 --m 2048 --n 2048 --k 256"
  "bench gemm_residual --impl ours --variant 5 --m 1000 --n 4000 --k 1000"
  # bf16 (cuda/gemm/bf16_paths.cuh): v14's kernel in bf16 at its widths (every dimension off
  # the tile, K tail; fused and residual forms), v9's tile at any M (M = 16 and 96, K < 64 and
  # a K tail), v1's WMMA kernel off the 16-byte path (N, K odd)
  "bench hgemm --impl ours --variant 14 --dtype bf16 --m 1000 --n 4000 --k 1000"
  "bench hgemm --impl ours --variant 14 --dtype bf16 --m 777 --n 3000 --k 520"
  "bench gemm_bias_gelu --impl fused --variant 7 --dtype bf16 --m 2056 --n 2056 --k 72"
  "bench gemm_bias_gelu --impl fused --gelu erf --variant 7 --dtype bf16 --m 96 --n 2048 --k 1032"
  "bench gemm_residual --impl ours --variant 11 --dtype bf16 --m 1000 --n 4000 --k 1000"
  "bench gemm_residual --impl ours --variant 11 --dtype bf16 --m 16 --n 4104 --k 40"
  "bench hgemm --impl ours --variant 14 --dtype bf16 --m 33 --n 17 --k 5"
  # the paths that only open at larger shapes: GEMV v5's tensor-core slabs and v6's W-as-A
  # slabs, each without and with the cluster of 2
  "bench gemv --impl ours --variant 5 --m 12 --n 8200 --k 999"
  "bench gemv --impl ours --variant 5 --m 3 --n 4104 --k 1000"
  "bench gemv --impl ours --variant 6 --m 3 --n 8200 --k 999"
  "bench gemv --impl ours --variant 6 --m 5 --n 4104 --k 4095"
  # GEMV v7's lean loop (K % 16 == 0): 2..8 and 9..16 rows, without and with the cluster, with
  # the rolling ring (fewer than 4 batches per warp) and the batches (16 / 12 groups per warp:
  # the branch-free steady state)
  "bench gemv --impl ours --variant 7 --m 3 --n 8200 --k 1040"
  "bench gemv --impl ours --variant 7 --m 6 --n 4104 --k 1040"
  "bench gemv --impl ours --variant 7 --m 12 --n 8200 --k 1024"
  "bench gemv --impl ours --variant 7 --m 11 --n 4104 --k 1024"
  "bench gemv --impl ours --variant 7 --m 3 --n 8200 --k 4096"
  "bench gemv --impl ours --variant 7 --m 12 --n 8200 --k 3072"
  # GEMV v8's TMA slabs (1 m-tile) with a partial stage, and with K = 8 in a cluster (a CTA
  # without stages)
  "bench gemv --impl ours --variant 8 --m 9 --n 8192 --k 136"
  "bench gemv --impl ours --variant 8 --m 16 --n 4104 --k 8"
  # GEMV v9: the clusters push their partial sums (slab_store_tile's PUSH), in every pushing
  # kernel: one row, v7's 2..8 rows, the TMA slab (1 m-tile; K = 8: a CTA without stages),
  # v6's slabs (odd K, the fallback)
  "bench gemv --impl ours --variant 9 --m 1 --n 4104 --k 1000"
  "bench gemv --impl ours --variant 9 --m 6 --n 4104 --k 1040"
  "bench gemv --impl ours --variant 9 --m 16 --n 4104 --k 8"
  "bench gemv --impl ours --variant 9 --m 12 --n 4104 --k 1000"
  "bench gemv --impl ours --variant 9 --m 5 --n 4104 --k 4095"
  # GEMV v10: v7's 2..8-row kernel in the one-row slab's loop order, without a cluster (129
  # slabs, 65 groups: warps with 4 and 5, the odd one multiplied after the loop) and in a
  # pushing cluster (65 slabs, the last one partial)
  "bench gemv --impl ours --variant 10 --m 7 --n 8200 --k 1040"
  "bench gemv --impl ours --variant 10 --m 3 --n 4104 --k 1040"
  # GEMV v11 (the form HGEMM v8 runs): the clusters' sums sent by st.async onto the peer's
  # mbarrier (slab_store_tile's PUSH 2): one row (and, without a cluster, the one-row slab as
  # v11 launches it) and v10's 2..8-row loop with a partial last slab, the TMA slab (K = 8: a
  # CTA without stages; 11 rows, a partial last slab)
  "bench gemv --impl ours --variant 11 --m 1 --n 4104 --k 1000"
  "bench gemv --impl ours --variant 11 --m 1 --n 8200 --k 1040"
  "bench gemv --impl ours --variant 11 --m 6 --n 4104 --k 1040"
  "bench gemv --impl ours --variant 11 --m 16 --n 4104 --k 8"
  "bench gemv --impl ours --variant 11 --m 11 --n 4104 --k 1024"
  # GEMV v12: v10's loop over units of two groups (one 16-byte x load each), at 2..8 rows in a
  # pushing cluster (65 slabs, the last one partial; ranks of 16 and 17 units), without a
  # cluster (129 slabs; warps with 2 and 3 units), one unit in all; at 9..16 rows (two halves
  # of x per W fragment) in a pushing cluster (65 slabs, the last one partial), without a
  # cluster at 9 rows, one unit in all
  "bench gemv --impl ours --variant 12 --m 6 --n 4104 --k 1056"
  "bench gemv --impl ours --variant 12 --m 7 --n 8200 --k 1056"
  "bench gemv --impl ours --variant 12 --m 3 --n 8192 --k 32"
  "bench gemv --impl ours --variant 12 --m 13 --n 4104 --k 1056"
  "bench gemv --impl ours --variant 12 --m 9 --n 8200 --k 1056"
  "bench gemv --impl ours --variant 12 --m 16 --n 8192 --k 32"
  # GEMV v13: 32-column slabs where v12 runs clusters (K % 64 == 0): a partial last slab with
  # 17 units, 16 rows over one unit, 2 rows at 4096² (the rows-below-M end)
  "bench gemv --impl ours --variant 13 --m 5 --n 4104 --k 1088"
  "bench gemv --impl ours --variant 13 --m 16 --n 4136 --k 64"
  "bench gemv --impl ours --variant 13 --m 2 --n 4096 --k 4096"
  # GEMV v14: v13 with the L2 prefetch hint and the one-pass end: the same shapes, and 12 rows
  # (rows past M in the second half of x)
  "bench gemv --impl ours --variant 14 --m 5 --n 4104 --k 1088"
  "bench gemv --impl ours --variant 14 --m 16 --n 4136 --k 64"
  "bench gemv --impl ours --variant 14 --m 12 --n 4128 --k 1024"
  "bench gemv --impl ours --variant 14 --m 2 --n 4096 --k 4096"
)

# The example user kernels (examples/kernels/*.cu, NVRTC) beside ours, and the example plugin:
# the user path (guard bands, the check after timing) must be clean too. One process per run
# (ROOFLINE_SUPERVISE=0: no child process for the sanitizer to follow).
export ROOFLINE_SUPERVISE=0
for f in examples/kernels/*.cu; do
  fam=$(sed -n 's|^// roofline: family = ||p' "$f" | head -1)
  case $fam in
    hgemm | gemm_bias_gelu | gemm_residual) shape="--m 100 --n 136 --k 72" ;;
    gemv) shape="--m 3 --n 1000 --k 300" ;;
    layernorm | add_rmsnorm) shape="--rows 5 --hidden 1030" ;;
    copy) shape="--bytes 100002" ;;  # even: whole fp16 elements
    *) shape="--elems 10007" ;;
  esac
  ours=$("$B" list --json | python3 -c '
import json, sys
print({f["name"]: f["our_impls"][0] for f in json.load(sys.stdin)}[sys.argv[1]])' "$fam")
  RUNS+=("bench $fam --impl $ours,user --kernel-file $f $shape")
done
PLUGINS="${ROOFLINE_PLUGIN_DIR:-$(dirname "$B")/plugins}"
[ -f "$PLUGINS/libgemv_plugin.so" ] &&
  RUNS+=("bench gemv --impl ours,user --plugin $PLUGINS/libgemv_plugin.so --m 3 --n 1000 --k 300")

if [ -n "${SANITIZE_FILTER:-}" ]; then
  kept=()
  for run in "${RUNS[@]}"; do
    if grep -Eq -- "$SANITIZE_FILTER" <<<"$run"; then kept+=("$run"); fi
  done
  [ "${#kept[@]}" -gt 0 ] || die "SANITIZE_FILTER '$SANITIZE_FILTER' matches no run"
  RUNS=("${kept[@]}")
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# One tool over its shard of the runs (every $3-th from the $2-th), serially; writes
# $OUT/<tool>.<shard>.log (joined into $OUT/<tool>.log at the end) and $TMP/<tool>.<shard>.tsv.
sanitize_tool() {
  local tool=$1 shard=$2 shards=$3 extra=() verify=()
  local log="$OUT/$tool.$shard.log" tsv="$TMP/$tool.$shard.tsv" idx=-1
  case $tool in
    racecheck) extra=(--racecheck-report all); verify=(--no-verify) ;;
    synccheck) verify=(--no-verify) ;;
  esac
  : >"$log"
  local runs=0 errors=0 failed=0 run rc n t0
  for run in "${RUNS[@]}"; do
    idx=$((idx + 1))
    [ $((idx % shards)) -eq "$shard" ] || continue
    runs=$((runs + 1))
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout -k 10 "$RUN_TIMEOUT" "$CS" --tool "$tool" --error-exitcode 1 --print-limit 50 \
      "${extra[@]}" "$B" $run $MIN "${verify[@]}" >"$TMP/$tool.$shard.run" 2>&1
    rc=$?
    # "ERROR SUMMARY: 3 errors" (racecheck prints it too, beside its hazard summary)
    n=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$TMP/$tool.$shard.run" | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
    errors=$((errors + n))
    local verdict=ok
    if [ "$rc" -ne 0 ]; then
      failed=$((failed + 1))
      if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then verdict="TIMEOUT after ${RUN_TIMEOUT}s"
      elif [ "$n" -gt 0 ]; then verdict="$n sanitizer error(s)"
      else verdict="roofline failed (exit $rc)"; fi
    fi
    {
      echo "################ $tool: roofline $run $MIN ${verify[*]}"
      cat "$TMP/$tool.$shard.run"
      echo "################ $tool: exit $rc, $n error(s), $(( $(date +%s) - t0 ))s: $verdict"
      echo
    } >>"$log"
    printf '%-10s %-80s %s\n' "$tool" "$run" "$verdict"
  done
  printf '%s\t%d\t%d\t%d\n' "$tool" "$runs" "$errors" "$failed" >"$tsv"
}

start=$(date +%s)
pids=()
for tool in $TOOLS; do
  shards=${SANITIZE_SHARDS:-1}
  [ "$tool" = racecheck ] && shards=$((shards * 3))
  for ((i = 0; i < shards; i++)); do
    sanitize_tool "$tool" "$i" "$shards" &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
# Each tool's shards joined: one log, one line of counts.
for tool in $TOOLS; do
  cat "$OUT/$tool".[0-9]*.log >"$OUT/$tool.log" 2>/dev/null && rm -f "$OUT/$tool".[0-9]*.log
  cat "$TMP/$tool".*.tsv 2>/dev/null | awk -F'\t' -v t="$tool" \
    '{r += $2; e += $3; f += $4} END {if (NR) printf "%s\t%d\t%d\t%d\n", t, r, e, f}' >"$TMP/$tool.tsv"
done

# ---- summary
status=0
{
  echo
  echo "compute-sanitizer over ${#RUNS[@]} runs per tool ($(( $(date +%s) - start ))s), logs in $OUT/"
  printf '%-10s %5s %7s %12s\n' tool runs errors "failed runs"
  for tool in $TOOLS; do
    if [ -s "$TMP/$tool.tsv" ]; then
      IFS=$'\t' read -r t r e f <"$TMP/$tool.tsv"
    else
      t=$tool r=0 e=0 f=1
    fi
    printf '%-10s %5d %7d %12d\n' "$t" "$r" "$e" "$f"
    if [ "$e" -gt 0 ] || [ "$f" -gt 0 ]; then status=1; fi
  done
  if [ "$status" -eq 0 ]; then echo "sanitize: clean"; else echo "sanitize: FAILED (see the logs)"; fi
} | tee "$OUT/summary.txt"
grep -q "sanitize: clean" "$OUT/summary.txt" || status=1
exit $status
