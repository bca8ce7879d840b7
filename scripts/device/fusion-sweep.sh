#!/usr/bin/env bash
# The fusion sweep alone (`roofline sweep fusion`, every case verified first), for a fused
# family version that landed after the committed report: results to $OUT/fusion.json, the
# log to $OUT/fusion.log; fused / plain and unfused / fused printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/roofline sweep fusion --out "$OUT/fusion.json" > "$OUT/fusion.log" 2>&1
echo "sweep exit=$?"
python3 - "$OUT/fusion.json" <<'PY'
import json, sys
t = {}
for r in json.load(open(sys.argv[1]))["records"]:
    s = r["shape"]
    key = (s["m"], s["n"], s["k"])
    name = "plain" if r["kernel"] == "hgemm" else r["impl"]
    t.setdefault(key, {})[name] = r["median_ms"] * 1e3
for key, v in t.items():
    print("x".join(map(str, key)), f'fused {v["ours"]:.2f} plain {v["plain"]:.2f} unfused {v["unfused"]:.2f} us',
          f'fused/plain {v["ours"] / v["plain"]:.3f} unfused/fused {v["unfused"] / v["ours"]:.3f}')
PY
