#!/usr/bin/env bash
# The interleaved groups' random order per round (src/measure/order.rs), checked against each
# case timed alone: smallm-order.sh at N = K = 4096 with fused / unfused / plain interleaved,
# fused / plain as a pair, and each alone, at M = 1, 4, 16, 64, 256, two rounds; then the GEMV
# with the read of W and cuBLAS interleaved (the decode sweep's cold group) at M = 1..16,
# 4096^2 and 8192^2 (gemv.tar, gemv.txt). Logs to $OUT; tables printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
RUNS="fused,unfused,plain fused,plain fused plain unfused" MS="1 4 16 64 256" \
  bash scripts/device/smallm-order.sh > /dev/null
J=$(mktemp -d)
for n in 4096 8192; do
  for m in 1 2 4 8 16; do
    $B/roofline bench gemv --m "$m" --n "$n" --k "$n" --impl read,ours,cublas --interleave \
      --no-verify --json > "$J/n$n-m$m.json" 2>>"$OUT/err.log"
  done
done
tar -cf "$OUT/gemv.tar" -C "$J" .
cat "$OUT/summary.txt"
python3 - "$J" <<'PY' | tee "$OUT/gemv.txt"
import json, sys, glob, os, re
for f in sorted(glob.glob(os.path.join(sys.argv[1], "n*.json"))):
    n, m = re.match(r"n(\d+)-m(\d+)\.json", os.path.basename(f)).groups()
    d = json.load(open(f))
    t = {("read" if r["kernel"] == "read" else r["impl"]): r["median_ms"] * 1e3
         for r in (d["records"] if isinstance(d, dict) else d)}
    print(f'GEMV {n}^2 M={m:<3s} read {t["read"]:6.2f} ours {t["ours"]:6.2f} '
          f'cublas {t["cublas"]:6.2f} us  ours/read {t["ours"] / t["read"]:.3f}')
PY
