#!/usr/bin/env python3
"""Prints the README's H200 headline table (Markdown) from a `roofline report` results.json.

    python3 scripts/readme_table.py docs/results/h200/results.json

Every figure comes from the records; nothing is typed in by hand.
"""
import sys

from roofline_results import ceiling, finder, load


def fmt_time(ms):
    return f"{ms:.3f} ms" if ms >= 1 else f"{ms * 1000:.1f} µs"


def rate(r):
    if r.get("tflops") and r["tflops"] >= 10:
        return f"{r['tflops']:.0f} TFLOP/s"
    return f"{r['gbs']:.0f} GB/s"


def main(path):
    d = load(path)
    recs = d["records"]
    copy_gbs = ceiling(d, "hbm_copy")
    find = finder(recs)

    rows = []

    def row(label, r, ref=None, note=""):
        if r is None:
            return
        refs = f"{fmt_time(ref['median_ms'])} ({rate(ref)})" if ref else "—"
        rows.append(f"| {label} | {fmt_time(r['median_ms'])} | {rate(r)} | {r['ai']:.1f} | "
                    f"{r['bound']} | {r['pct_attainable']:.0f}% | {refs} | {note} |")

    for n in (2048, 4096, 8192):
        o = find("square", "hgemm", "ours", m=n, n=n, k=n)
        c = find("square", "hgemm", "cublas", m=n, n=n, k=n)
        if o and c:
            row(f"HGEMM {n}³, ours {o['variant']} vs cuBLAS", o, c,
                f"{100 * c['median_ms'] / o['median_ms']:.1f}% of cuBLAS")
    for m in (1, 16, 256):
        o = find("fusion", "gemm_bias_gelu", "ours", m=m, n=4096, k=4096)
        lt = find("fusion", "gemm_bias_gelu", "cublaslt", m=m, n=4096, k=4096)
        un = find("fusion", "gemm_bias_gelu", "unfused", m=m, n=4096, k=4096)
        if o and lt and un:
            row(f"GEMM+bias+GELU {m}×4096×4096, fused {o['variant']} vs cuBLASLt", o, lt,
                f"unfused (ours): {fmt_time(un['median_ms'])}, {un['median_ms'] / o['median_ms']:.2f}x the fused time")
    for nk in (4096, 8192):
        o = find("decode", "gemv", "ours", m=1, n=nk, k=nk)
        c = find("decode", "gemv", "cublas", m=1, n=nk, k=nk)
        rd = find("decode", "read", "ours", bytes=nk * nk * 2)
        if o and c:
            note = f"{o['median_ms'] / rd['median_ms']:.2f}x a plain read of W" if rd else ""
            row(f"decode GEMV 1×{nk}×{nk}, ours {o['variant']} vs cuBLAS", o, c, note)
    o = find("decode", "gemv", "ours", cache="hot", m=1, n=4096, k=4096)
    cold = find("decode", "gemv", "ours", m=1, n=4096, k=4096)
    if o and cold:
        row("decode GEMV 1×4096×4096, hot L2", o, None,
            f"{fmt_time(cold['median_ms'])} cold: the 32 MB of weights stay in the 60 MiB L2")
    o = find("decode", "gemv", "ours", timing="graph", m=1, n=8192, k=8192)
    if o:
        row("decode GEMV 1×8192×8192, graph timing", o, None, f"{100 * o['gbs'] / copy_gbs:.1f}% of HBM copy")
    big = max((r["shape"].get("elems", 0) for r in recs if r["kernel"] == "relu"), default=0)
    for k in ("relu", "gelu"):
        o = find("elementwise", k, "ours", elems=big)
        if o:
            row(f"{'ReLU' if k == 'relu' else 'GELU'} {big * 2 / 2**30:.0f} GiB", o, None,
                f"{100 * o['gbs'] / copy_gbs:.1f}% of HBM copy")
    o = find("elementwise", "layernorm", "ours", rows=32768, hidden=4096)
    if o:
        row(f"LayerNorm 32768×4096 ({o['variant']})", o, None, f"{100 * o['gbs'] / copy_gbs:.1f}% of HBM copy")
    o = find("elementwise", "add_rmsnorm", "ours", rows=32768, hidden=4096)
    if o:
        row(f"residual add + RMSNorm 32768×4096 ({o['variant']})", o, None,
            f"{100 * o['gbs'] / copy_gbs:.1f}% of HBM copy")
    o = find("elementwise", "layernorm", "ours", timing="graph", rows=4096, hidden=4096)
    if o:
        row(f"LayerNorm 4096×4096, graph timing ({o['variant']})", o, None, f"{100 * o['gbs'] / copy_gbs:.1f}% of HBM copy")

    print("| measurement (cold L2, kernel timing unless noted) | median | rate | FLOP/byte | bound | % of attainable | reference | note |")
    print("|---|---:|---:|---:|---|---:|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/results/h200/results.json")
