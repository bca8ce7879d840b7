#!/usr/bin/env python3
"""Renames the variants of a results file recorded before the one-file-per-step ladders to the
ladders' numbers (docs/perf-log.md, "The GEMM family's variant numbers" and "The GEMV family's
variant numbers"), so that `roofline compare` matches its records with a new run's. Each old
number maps to the new variant that runs its kernels (old HGEMM v13 -> v6 is exact at the
squares, where v13 never split K; the progression is timed there only); records of variants
without one are dropped.

The GEMM ladder came first (9961220), the GEMV ladder after it: a report recorded before both
(every committed report up to AF) needs both renamed, the default; one recorded between the two
only its GEMV records (--gemv-only).

Usage: python3 scripts/renumber_gemm_variants.py [--gemv-only] OLD.json > OLD-renumbered.json
"""
import json
import sys

# old HGEMM number -> new (also the unfused pair's and the decode sweep's "hgemm-vN")
HGEMM = {1: 1, 2: 2, 3: 3, 5: 4, 7: 5, 13: 6, 15: 7, 21: 8, 22: 9, 25: 10, 27: 11}
# old GEMM+bias+GELU number -> new (the fused kernel, impl "ours")
FUSED = {21: 1, 22: 2, 25: 3, 27: 4}
# old GEMV number -> new. Dropped: v5 and v6 (removed), and v4, v10 and v16, folded into the
# steps of v7, v11 and v17 (old v4 runs new v4's kernels except at one row, old v16 new v12's
# at M <= 8; old v7 and v17 map there one to one).
GEMV = {1: 1, 2: 2, 3: 3, 7: 4, 8: 5, 9: 6, 11: 7, 12: 8, 13: 9, 14: 10, 15: 11, 17: 12, 18: 13,
        19: 14}


def renumber(variant, table, prefix="v"):
    if not variant.startswith(prefix):
        return variant
    try:
        old = int(variant[len(prefix):])
    except ValueError:
        return variant
    new = table.get(old)
    return None if new is None else f"{prefix}{new}"


def convert(record, gemm=True):
    kernel, impl, variant = record["kernel"], record["impl"], record["variant"]
    if kernel == "gemv" and variant.startswith("hgemm-v"):
        if not gemm:
            return record
        new = renumber(variant, HGEMM, "hgemm-v")
    elif kernel == "gemv" and impl == "ours":
        new = renumber(variant, GEMV)
    elif not gemm:
        return record
    elif kernel == "hgemm" and impl == "ours":
        new = renumber(variant, HGEMM)
    elif kernel.startswith("gemm_bias_gelu") and impl == "ours":
        new = renumber(variant, FUSED)
    elif kernel.startswith("gemm_bias_gelu") and impl == "unfused":
        new = renumber(variant, HGEMM)
    else:
        return record
    if new is None:
        return None
    return dict(record, variant=new)


def main():
    args = sys.argv[1:]
    gemm = "--gemv-only" not in args
    paths = [a for a in args if a != "--gemv-only"]
    if len(paths) != 1 or any(a.startswith("-") for a in paths):
        sys.exit(__doc__)
    with open(paths[0]) as f:
        data = json.load(f)
    records = [convert(r, gemm) for r in data["records"]]
    data["records"] = [r for r in records if r is not None]
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
