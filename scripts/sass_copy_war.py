#!/usr/bin/env python3
"""How soon the lean square loop overwrites its cp.async source registers (development aid).

NC2 (docs/perf-log.md, HGEMM v26) found the fused kernel's lean loop stalling on long
scoreboard where an integer add rebuilds a copy pass's 64-bit source in the register pair an
LDGSTS has not yet read. This reads a cubin's SASS (cuobjdump), finds the main loop of each
pipelined_wmma_kernel on the 256x128 tile whose name contains KEY (the loop: the backward branch
whose body holds 512 HMMAs, four k-tiles), and for each LDGSTS in it counts the instructions
until its source pair is written again. v26 (e76888a): plain median 38 (none within 6),
fused tanh median 13, fused erf 16; v27's fused lean loop (8ce5d0c, key "...Li2EEEv"): tanh 37,
erf 35.

Usage: sass_copy_war.py CUBIN KEY   (CUOBJDUMP / NVDISASM dirs on PATH; e.g. KEY
"EpiIdentityELi1EEEv" for the plain lean kernel; "ELb1EEEv" before 8ce5d0c). Build the cubin
with nvcc -cubin for sm_90a.
"""
import re
import subprocess
import sys


def functions(path):
    out = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True,
                         check=True).stdout
    fs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            cur = m.group(1)
            fs[cur] = []
            continue
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if cur and m:
            fs[cur].append((int(m.group(1), 16), m.group(2).strip()))
    return fs


def main_loop(ins):
    for addr, text in ins:
        m = re.search(r"BRA.*?(0x[0-9a-f]+)", text)
        if m and int(m.group(1), 16) < addr:
            body = [t for a, t in ins if int(m.group(1), 16) <= a <= addr]
            if sum(t.startswith("HMMA") for t in body) == 512:
                return body
    return None


def reuse_distances(body):
    dist = []
    for i, text in enumerate(body):
        m = re.search(r"\]\[R(\d+)\.64", text) if "LDGSTS" in text else None
        if not m:
            continue
        pair = {f"R{int(m.group(1))}", f"R{int(m.group(1)) + 1}"}
        for j in range(i + 1, len(body)):
            op = re.sub(r"^@!?U?P\w+ ", "", body[j]).split(" ", 1)
            if len(op) == 2 and op[1].split(",")[0].strip() in pair:
                dist.append(j - i)
                break
        else:
            dist.append(len(body))
    return dist


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for name, ins in functions(sys.argv[1]).items():
        if sys.argv[2] not in name or "pipelined_wmma_kernel" not in name or "ILi256ELi128" not in name:
            continue
        body = main_loop(ins)
        if body is None:
            continue
        d = sorted(reuse_distances(body))
        print(f"{name[-60:]}: loop {len(body)} instructions, {len(d)} LDGSTS, source reused after "
              f"min {d[0]} / median {d[len(d) // 2]}; within 6: {sum(x <= 6 for x in d)}, "
              f"within 12: {sum(x <= 12 for x in d)}")


if __name__ == "__main__":
    main()
