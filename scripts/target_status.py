#!/usr/bin/env python3
"""Checks a `roofline report` results.json against the project's H200 performance targets
(issue 42's for the GEMM family, issues 4 and 5's for the rest) and prints one line per target
with the measured figures.

    python3 scripts/target_status.py docs/results/h200/results.json
"""
import sys

from roofline_results import ceiling, finder, load


def main(path):
    d = load(path)
    recs = d["records"]
    copy = ceiling(d, "hbm_copy")
    get = finder(recs)

    def line(ok, text):
        print(f"{'MET    ' if ok else 'MISSED '} {text}")

    def ratio(r, goal):
        # A ratio that rounds to its goal but misses it gets a fourth decimal, so that a
        # MISSED line never reads "1.000x (>= 1.00x)".
        return f"{r:.4f}" if r < goal and f"{r:.3f}" == f"{goal:.3f}" else f"{r:.3f}"

    for n, goal in ((2048, 0.90), (4096, 1.00), (8192, 1.00)):
        o, c = get("square", "hgemm", "ours", m=n, n=n, k=n), get("square", "hgemm", "cublas", m=n, n=n, k=n)
        r = o["tflops"] / c["tflops"]
        line(r >= goal, f"HGEMM {n}^3: {o['tflops']:.0f} vs cuBLAS {c['tflops']:.0f} TFLOP/s = {ratio(r, goal)}x (>= {goal:.2f}x)")

    # bf16 (issue 42): the square sweep's bf16 pairs, where the file has them.
    for n, goal in ((2048, 0.90), (4096, 1.00), (8192, 1.00)):
        sq = dict(m=n, n=n, k=n, dtype="bf16")
        o, c = get("square", "hgemm", "ours", **sq), get("square", "hgemm", "cublas", **sq)
        if o and c:
            r = c["median_ms"] / o["median_ms"]
            line(r >= goal, f"HGEMM bf16 {n}^3: {o['tflops']:.0f} vs cuBLAS bf16 {c['tflops']:.0f} TFLOP/s = {ratio(r, goal)}x (>= {goal:.2f}x)")

    llm = sorted({(r["shape"]["m"], r["shape"]["n"], r["shape"]["k"]) for r in recs if r["experiment"] == "llm"})
    speeds = []
    for m, n, k in llm:
        o, c = get("llm", "hgemm", "ours", m=m, n=n, k=k), get("llm", "hgemm", "cublas", m=m, n=n, k=k)
        if o and c:
            speeds.append((c["median_ms"] / o["median_ms"], f"{m}x{n}x{k}"))
    if speeds:
        low = [f"{s} {r:.3f}" for r, s in speeds if r < 0.95]
        line(not low, f"HGEMM >= 0.95x cuBLAS at {len(speeds)} LLM shapes" +
             (f"; below at: {', '.join(low)}" if low else f" (min {min(speeds)[0]:.3f})"))

    shapes = sorted({(r["shape"]["m"], r["shape"]["n"], r["shape"]["k"]) for r in recs
                     if r["experiment"] == "fusion"})
    worst_plain, slower, small, lt = [], [], [], []
    for m, n, k in shapes:
        f = get("fusion", "gemm_bias_gelu", "ours", m=m, n=n, k=k)
        u = get("fusion", "gemm_bias_gelu", "unfused", m=m, n=n, k=k)
        p = get("fusion", "hgemm", "ours", m=m, n=n, k=k)
        c = get("fusion", "gemm_bias_gelu", "cublaslt", m=m, n=n, k=k)
        if not (f and u and p):
            continue
        worst_plain.append((f["median_ms"] / p["median_ms"], f"{m}x{n}x{k}"))
        if c and m >= 256:
            lt.append((f["median_ms"] / c["median_ms"], f"{m}x{n}x{k}"))
        if f["median_ms"] > u["median_ms"]:
            slower.append(f"{m}x{n}x{k} ({f['median_ms'] / u['median_ms']:.3f})")
        if m <= 256 and n == 4096 and k == 4096:
            small.append((u["median_ms"] / f["median_ms"], m))
    squares = [(r, s) for r, s in worst_plain if len(set(s.split("x"))) == 1]
    over = [f"{s} {r:.3f}" for r, s in squares if r > 1.02]
    line(squares and not over, "fused <= 1.02x plain GEMM at the squares" +
         (f"; over at: {', '.join(over)}" if over else f" (max {max(squares)[0]:.3f})" if squares else ""))
    over = [f"{s} {r:.3f}" for r, s in worst_plain if r > 1.03]
    line(not over, "fused <= 1.03x plain GEMM everywhere" + (f"; over at: {', '.join(over)}" if over else
                                                            f" (max {max(worst_plain)[0]:.3f})"))
    if lt:
        over = [f"{s} {r:.3f}" for r, s in lt if r > 1.0]
        line(not over, "fused at least as fast as cuBLASLt GELU_BIAS at every M >= 256" +
             (f"; slower at: {', '.join(over)}" if over else f" (max {max(lt)[0]:.3f})"))
    line(not slower, "fused never slower than unfused" + (f"; slower at: {', '.join(slower)}" if slower else ""))
    line(all(r >= 1.10 for r, _ in small),
         "fused >= 1.10x unfused for M <= 256 at N=K=4096: " + ", ".join(f"M={m} {r:.3f}" for r, m in small))

    g = get("decode", "gemv", "ours", timing="graph", m=1, n=8192, k=8192)
    line(g["gbs"] >= 0.9 * copy, f"GEMV M=1 8192^2 cold graph: {100 * g['gbs'] / copy:.1f}% of copy (>= 90%)")
    for nk in (4096, 8192):
        rd = get("decode", "read", "ours", bytes=nk * nk * 2)
        ratios = []
        faster = []
        for m in (1, 2, 4, 8, 16):
            o, c = get("decode", "gemv", "ours", m=m, n=nk, k=nk), get("decode", "gemv", "cublas", m=m, n=nk, k=nk)
            ratios.append((o["median_ms"] / rd["median_ms"], m))
            faster.append((o["median_ms"], c["median_ms"], c["noise"], m))
        line(all(r <= 1.05 for r, _ in ratios),
             f"GEMV {nk}^2 kernel timing, within 5% of the read ({rd['median_ms'] * 1e3:.1f} us): " +
             ", ".join(f"M={m} {r:.3f}" for r, m in ratios))
        if nk == 4096:
            line(all(o < c for o, c, _, _ in faster), "GEMV 4096^2 faster than cuBLAS at every M: " +
                 ", ".join(f"M={m} {o * 1e3:.1f} vs {c * 1e3:.1f}" for o, c, _, m in faster))
        else:
            line(all(o <= c * (1 + nz) for o, c, nz, _ in faster), "GEMV 8192^2 not slower than cuBLAS beyond noise: " +
                 ", ".join(f"M={m} {o * 1e3:.1f} vs {c * 1e3:.1f}" for o, c, _, m in faster))
    big = max(r["shape"].get("elems", 0) for r in recs if r["kernel"] == "relu")
    for k in ("relu", "gelu"):
        r = get("elementwise", k, "ours", elems=big)
        line(r["gbs"] >= 0.95 * copy, f"{k} {big * 2 / 2**30:.0f} GiB: {100 * r['gbs'] / copy:.1f}% of copy (>= 95%)")
    r = get("elementwise", "layernorm", "ours", rows=32768, hidden=4096)
    line(r["gbs"] >= 0.9 * copy, f"LayerNorm 32768x4096: {100 * r['gbs'] / copy:.1f}% of copy (>= 90%)")
    r = get("elementwise", "layernorm", "ours", timing="graph", rows=4096, hidden=4096)
    line(r["gbs"] >= 0.85 * copy, f"LayerNorm 4096x4096 graph: {100 * r['gbs'] / copy:.1f}% of copy (>= 85%)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/results/h200/results.json")
