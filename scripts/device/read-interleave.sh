#!/usr/bin/env bash
# Does interleaving with the read of W cost the GEMV something the read does not pay? The
# decode sweep times the GEMV (64-100 KB of shared memory per CTA) round-robin with the read
# (none), so every GEMV launch follows a read and vice versa. Here each GEMV and the read
# alone and interleaved, one launch, cold, two rounds. Logs to $OUT; medians printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
J=$(mktemp -d)  # the JSON files, returned as one tar (the device tool returns at most 8 files)
for round in 1 2; do
  for n in 4096 8192; do
    for m in 1 16; do
      s="--m $m --n $n --k $n"
      $B/roofline bench gemv $s --impl ours,read --interleave --no-verify --json \
        > "$J/r$round-m$m-n$n-inter.json" 2>>"$OUT/err.log"
      $B/roofline bench gemv $s --impl ours --no-verify --json \
        > "$J/r$round-m$m-n$n-alone-ours.json" 2>>"$OUT/err.log"
      $B/roofline bench gemv $s --impl read --no-verify --json \
        > "$J/r$round-m$m-n$n-alone-read.json" 2>>"$OUT/err.log"
    done
  done
done
tar -cf "$OUT/json.tar" -C "$J" .
python3 - "$J" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(sys.argv[1], "r*.json"))):
    base = os.path.basename(f)[:-5]
    rnd, m, n, mode = base.split("-")[:4]
    d = json.load(open(f))
    for r in (d["records"] if isinstance(d, dict) else d):
        k = "read" if r["kernel"] == "read" else "gemv"
        t[(m, n, rnd)][f"{k}-{mode}"] = r["median_ms"] * 1e3
for key in sorted(t):
    v = t[key]
    print(" ".join(key), " ".join(f"{k} {x:.2f}" for k, x in sorted(v.items())),
          f"| ratio inter {v['gemv-inter'] / v['read-inter']:.3f} alone {v['gemv-alone'] / v['read-alone']:.3f}")
PY
