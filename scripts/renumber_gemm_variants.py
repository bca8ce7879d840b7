#!/usr/bin/env python3
"""Renames the GEMM family's variants in a results file recorded before the cuda/gemm/ ladder
to the numbers of the ladder (docs/perf-log.md, "The GEMM family's variant numbers"), so that
`roofline compare` matches its records with a new run's. Each old number maps to the new
variant that runs its kernels (old v13 -> v6 is exact at the squares, where v13 never split
K; the progression is timed there only); records of variants without one are dropped.

Usage: python3 scripts/renumber_gemm_variants.py OLD.json > OLD-renumbered.json
"""
import json
import sys

# old HGEMM number -> new (also the unfused pair's and the decode sweep's "hgemm-vN")
HGEMM = {1: 1, 2: 2, 3: 3, 5: 4, 7: 5, 13: 6, 15: 7, 21: 8, 22: 9, 25: 10, 27: 11}
# old GEMM+bias+GELU number -> new (the fused kernel, impl "ours")
FUSED = {21: 1, 22: 2, 25: 3, 27: 4}


def renumber(variant, table, prefix="v"):
    if not variant.startswith(prefix):
        return variant
    try:
        old = int(variant[len(prefix):])
    except ValueError:
        return variant
    new = table.get(old)
    return None if new is None else f"{prefix}{new}"


def convert(record):
    kernel, impl, variant = record["kernel"], record["impl"], record["variant"]
    if kernel == "hgemm" and impl == "ours":
        new = renumber(variant, HGEMM)
    elif kernel.startswith("gemm_bias_gelu") and impl == "ours":
        new = renumber(variant, FUSED)
    elif kernel.startswith("gemm_bias_gelu") and impl == "unfused":
        new = renumber(variant, HGEMM)
    elif kernel == "gemv" and variant.startswith("hgemm-v"):
        new = renumber(variant, HGEMM, "hgemm-v")
    else:
        return record
    if new is None:
        return None
    return dict(record, variant=new)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        data = json.load(f)
    records = [convert(r) for r in data["records"]]
    data["records"] = [r for r in records if r is not None]
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
