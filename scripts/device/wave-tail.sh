#!/usr/bin/env bash
# How much the last, partial wave of tiles costs the large squares (go / no-go for a
# stream-K tail): ours (best) at K = 8192 on shapes whose 256x128 tiles fill exactly 15 or
# 16 waves of 132 CTAs, beside 8192^3 (2048 tiles = 15.5 waves), each case alone at settled
# clocks (the square sweep's protocol: 1.5 s warm-up, >= 0.5 s of samples), two rounds.
# Logs to $OUT; TFLOP/s and SM clocks printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
shapes=("--m 8192 --n 8192" "--m 8448 --n 8192" "--m 7680 --n 8448")
for round in 1 2; do
  for s in "${shapes[@]}"; do
    $B/roofline bench gemm $s --k 8192 --impl wmma --no-verify --warmup-ms 1500 \
      --min-time-ms 500 --max-time-ms 1000 --json > "$OUT/r$round-$(echo "$s" | tr -dc '0-9 ' | tr -s ' ' x | sed 's/^x//').json" 2>>"$OUT/err.log"
  done
done
python3 - "$OUT" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(os.path.join(sys.argv[1], "r*.json"))):
    d = json.load(open(f))
    for r in (d["records"] if isinstance(d, dict) else d):
        s, c = r["shape"], r["clocks"]
        print(f'{os.path.basename(f)[:2]} {s["m"]}x{s["n"]}x{s["k"]} {r["tflops"]:.1f} TFLOP/s '
              f'{r["median_ms"]*1e3:.0f} us noise {r["noise"]:.3f} sm {c["sm_mhz_min"]}-{c["sm_mhz_max"]} {c["power_w"]:.0f} W')
PY
