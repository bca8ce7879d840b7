#!/usr/bin/env bash
# The decode sweep with the read of W timed interleaved with the GEMVs (cold), then Nsight
# Compute on the read, 1, 2 and 16 rows at 8192^2 with caches and clocks left as the
# benchmark leaves them (rotating buffer sets, no flush): kernel durations and DRAM bytes in
# the benchmark's own state, against N1's flushed ones. Logs to $OUT; a table printed last.
# shellcheck source=prelude.sh
. "$(dirname "$0")/prelude.sh"
$B/roofline sweep decode --out "$OUT/decode.json" > "$OUT/decode.log" 2>&1
echo "sweep decode: rc $?"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_active.avg,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
one="--n 8192 --k 8192 --min-samples 30 --max-samples 30 --warmup-ms 0 --min-time-ms 0 --no-verify"
for m in 1 2 16; do
  "$NCU" --clock-control none --cache-control none --metrics $metrics --csv \
    --log-file "$OUT/ncu-m$m.csv" --kernel-name regex:'read_once|gemv_slab' --launch-skip 12 \
    --launch-count 6 $B/roofline bench gemv --m $m --impl read,ours --interleave $one \
    > "$OUT/ncu-m$m.log" 2>&1
done
python3 - "$OUT/decode.json" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
read = {(r["shape"]["bytes"], r["cache"], r["timing"]): r["median_ms"] for r in recs if r["kernel"] == "read"}
print("n     M   cache timing  ours/read  cublas/read  ours us")
for r in recs:
    s = r["shape"]
    if r["kernel"] != "gemv" or r["impl"] != "ours" or s["m"] > 16: continue
    key = (2 * s["n"] * s["k"], r["cache"], r["timing"])
    lib = [x for x in recs if x["kernel"] == "gemv" and x["impl"] == "cublas" and x["shape"] == s and x["cache"] == r["cache"] and x["timing"] == r["timing"]]
    if key in read:
        print(f'{s["n"]:5} {s["m"]:3} {r["cache"]:5} {r["timing"]:6} {r["median_ms"]/read[key]:9.3f} {lib[0]["median_ms"]/read[key] if lib else 0:11.3f} {r["median_ms"]*1e3:8.2f}')
PY
python3 - "$OUT" <<'PY'
import csv, sys, collections
for m in (1, 2, 16):
    try:
        rows = list(csv.DictReader(l for l in open(f"{sys.argv[1]}/ncu-m{m}.csv") if l.startswith('"')))
    except OSError as e:
        print(f"M={m}: {e}"); continue
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        k = "read" if "read_once" in r["Kernel Name"] else "gemv"
        try: per[k][r["Metric Name"]].append(float(r["Metric Value"].replace(",", "")))
        except ValueError: pass
    for k, ms in per.items():
        med = {n: sorted(v)[len(v) // 2] for n, v in ms.items()}
        print(f"M={m:2} {k}: " + "  ".join(f"{n.split('__')[1].split('.')[0]}={v:.4g}" for n, v in sorted(med.items())))
PY
