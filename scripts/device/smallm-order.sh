#!/usr/bin/env bash
# Does the interleaving order bias the fusion sweep at small M? (A3, when the sweep timed
# fused, unfused, plain round-robin in that order, so plain always ran right after the unfused
# pair, whose GEMM is plain's own kernel, while the fused kernel, at 9..64 rows a different
# kernel, followed plain; interleaved groups now draw a random order per round.) Here, at
# N = K = 4096, cold, one launch: the three in the sweep's order and reversed, fused / plain as
# a pair in both orders, and each case alone; two rounds (ROUNDS, MS: the rounds and row counts
# to run). Logs to $OUT (json.tar: one file per run, summary.txt); the table is printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
J=$(mktemp -d)
# RUNS (optional): the impl lists to run, space-separated. Since the interleaved groups draw a
# fresh order each round (src/measure/order.rs), a list's order no longer sets the timing order.
# shellcheck disable=SC2206
runs=(${RUNS:-fused,unfused,plain plain,unfused,fused fused,plain plain,fused fused plain unfused})
for round in ${ROUNDS:-1 2}; do
  for m in ${MS:-1 16 64 256}; do
    for o in "${runs[@]}"; do
      f="$J/r$round-m$m-${o//,/+}.json"
      il=""; [[ "$o" == *,* ]] && il="--interleave"
      $B/roofline bench gemm-gelu --m "$m" --n 4096 --k 4096 --impl "$o" $il --no-verify \
        --warmup-ms 300 --min-time-ms 400 --max-time-ms 800 --json > "$f" 2>>"$OUT/err.log"
    done
  done
done
tar -cf "$OUT/json.tar" -C "$J" .
python3 - "$J" <<'PY' | tee "$OUT/summary.txt"
import json, sys, glob, os, re
rows = {}
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    rnd, m, order = re.match(r"r(\d)-m(\d+)-(.*)\.json", os.path.basename(f)).groups()
    d = json.load(open(f))
    for r in (d["records"] if isinstance(d, dict) else d):
        key = "plain" if r["kernel"] == "hgemm" else r["impl"]
        rows.setdefault((int(m), order.replace("+", ","), int(rnd)), {})[key] = r["median_ms"] * 1e3
alone = {}
for (m, order, rnd), t in rows.items():
    if "," not in order:
        alone.setdefault((m, rnd), {}).update(t)
rows.update({(m, "each alone", rnd): t for (m, rnd), t in alone.items()})
for (m, order, rnd) in sorted(k for k in rows if "," in k[1] or k[1] == "each alone"):
    t = rows[(m, order, rnd)]
    cell = lambda k: f"{t[k]:6.2f}" if k in t else "     -"
    fp = f'{t["ours"] / t["plain"]:.3f}' if "ours" in t and "plain" in t else "    -"
    uf = f'{t["unfused"] / t["ours"]:.3f}' if "ours" in t and "unfused" in t else "    -"
    print(f'M={m:<4d} r{rnd} {order:20s} fused {cell("ours")} unfused {cell("unfused")} '
          f'plain {cell("plain")} us  fused/plain {fp}  unfused/fused {uf}')
PY
