#!/usr/bin/env python3
"""A kernel's SASS with each instruction's scoreboard use (development aid).

Prints, for every function of a cubin whose name contains KEY, each instruction with its
control bits decoded from cuobjdump's encodings: the stall count (S), the scoreboard its
result sets (W: variable-latency ops such as loads), the one it releases when its operands are
read (R), and the scoreboards it waits on before issuing (wait). With --loads only the global
loads, the MMAs and the instructions that wait are printed: enough to see which loads a wait
also waits for (loads that share a scoreboard are waited for together). TR2 (docs/perf-log.md,
GEMV) read GEMV v19's loop this way.

Usage: sass_waits.py CUBIN KEY [--loads]   (cuobjdump and nvdisasm on PATH; build the cubin
with nvcc -cubin for sm_90a)
"""
import re
import subprocess
import sys


def functions(path):
    out = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    fs, cur, i = {}, None, 0
    while i < len(out):
        m = re.match(r"\s+Function : (\S+)", out[i])
        if m:
            cur = m.group(1)
            fs[cur] = []
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/", out[i])
        if cur and m and i + 1 < len(out):
            hi = int(re.search(r"/\* (0x[0-9a-f]+) \*/", out[i + 1]).group(1), 16)
            fs[cur].append((int(m.group(1), 16), m.group(2).strip(), hi))
            i += 2
            continue
        i += 1
    return fs


def decode(hi):
    """Control bits of the instruction's upper 64-bit word (Volta .. Hopper layout)."""
    stall, wr, rd, wait = (hi >> 41) & 0xF, (hi >> 46) & 7, (hi >> 49) & 7, (hi >> 52) & 0x3F
    return stall, None if wr == 7 else wr, None if rd == 7 else rd, \
        [b for b in range(6) if wait >> b & 1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    loads_only = "--loads" in sys.argv[3:]
    for name, ins in functions(sys.argv[1]).items():
        if sys.argv[2] not in name:
            continue
        print(f"== {name}")
        for k, (addr, text, hi) in enumerate(ins):
            stall, wr, rd, wait = decode(hi)
            if loads_only and not (wait or re.match(r"(@\S+ )?(LDG|HMMA|BRA|BAR)", text)):
                continue
            print(f"{k:4d} {addr:05x} {text[:64]:64s} S{stall:<2d} "
                  f"W{'-' if wr is None else wr} R{'-' if rd is None else rd} "
                  f"wait:{''.join(map(str, wait))}")


if __name__ == "__main__":
    main()
