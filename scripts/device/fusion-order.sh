#!/usr/bin/env bash
# Does the interleaving order bias fused / plain? The fusion sweep times fused, unfused,
# plain round-robin in that order, so plain always follows the unfused pair, whose last
# kernel (the memory-bound bias+GELU) draws less power under the cap. Here the same three
# (and fused / plain as a pair) in both orders, at settled clocks (1.5 s warm-up, >= 1 s of
# samples), cold, one launch. Logs to $OUT; fused / plain per order printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
J=$(mktemp -d)  # the JSON files, returned as one tar (the device tool returns at most 8 files)
orders=("fused,unfused,plain" "plain,unfused,fused" "fused,plain" "plain,fused")
for s in "--m 2048 --n 2048 --k 2048" "--m 1024 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192"; do
  for o in "${orders[@]}"; do
    f="$J/$(echo "$s" | tr -dc '0-9 ' | tr -s ' ' x | sed 's/^x//')-${o//,/+}.json"
    $B/roofline bench gemm-gelu $s --impl "$o" --interleave --no-verify --warmup-ms 1500 \
      --min-time-ms 1000 --max-time-ms 2000 --json > "$f" 2>>"$OUT/err.log"
  done
done
tar -cf "$OUT/json.tar" -C "$J" .
python3 - "$J" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    recs = d["records"] if isinstance(d, dict) else d
    t = {}
    for r in recs:
        key = "plain" if r["kernel"] == "hgemm" else r["impl"]
        t[key] = r["median_ms"] * 1e3
    s = recs[0]["shape"]
    order = os.path.basename(f).rsplit("-", 1)[1][:-5].replace("+", ",")
    extra = f' unfused/fused {t["unfused"] / t["ours"]:.3f}' if "unfused" in t else ""
    print(f'{s["m"]}x{s["n"]}x{s["k"]} {order:22s} fused {t["ours"]:.1f} plain {t["plain"]:.1f} us'
          f' fused/plain {t["ours"] / t["plain"]:.4f}{extra}')
PY
