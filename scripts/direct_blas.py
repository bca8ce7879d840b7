#!/usr/bin/env python3
"""Times one cuBLAS / cuBLASLt call made directly, outside the tool, as a careful user would.

The cross-check's reference for library calls (scripts/crosscheck.py): the same call the tool
makes (cublasGemmEx, row-major through swapped operands, fp32 compute, CUBLAS_GEMM_DEFAULT; or
cublasLtMatmul with the GELU_BIAS epilogue and the algorithm of its first heuristic, a 32 MiB
workspace), in a process of its own with nothing of the tool's engine: the CUDA driver API
and the cuBLAS library files through ctypes, resolved from the same LD_LIBRARY_PATH as the
tool's (scripts/device/env.sh), never PyTorch's copies (no torch import here).

Timed as triton's do_bench does, with one change: CUDA events around one call queued behind
an L2 flush, so the host's launch latency is hidden behind the flush and the events time the
call; short bursts with rests between them, so that the power cap never sets in; the median.
The flush reads 256 MiB (cublasSasum into device memory) by default, leaving L2 clean as the
tool's rotating buffer sets do; `--flush write` zeroes it instead, as do_bench does, which
leaves L2 full of dirty lines the call's first accesses must write back.

Prints one JSON object: median_ms, samples, min_ms, max_ms, the library file and the flush.
Exit 0 on success, 1 on a CUDA / cuBLAS error, 2 on bad arguments or a missing library.
Usage: direct_blas.py gemm|gelubias M N K [--dtype fp16|bf16] [--flush read|write]
"""
import argparse
import ctypes
import json
import random
import statistics
import sys
import time
from array import array

WORKSPACE_BYTES = 32 << 20  # the tool's (src/gpu/libs.rs)
FLUSH_BYTES = 256 << 20
CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F = 2, 14, 0
CUBLAS_COMPUTE_32F = 68
CUBLAS_OP_N = 0
CUBLAS_GEMM_DEFAULT = -1
CUBLAS_POINTER_MODE_DEVICE = 1
LT_DESC_EPILOGUE, LT_DESC_BIAS_POINTER, LT_DESC_BIAS_DATA_TYPE = 7, 8, 26
LT_EPILOGUE_GELU_BIAS = 36
LT_PREF_MAX_WORKSPACE_BYTES = 1


class Failed(Exception):
    pass


class HeuristicResult(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("workspaceSize", ctypes.c_size_t),
                ("state", ctypes.c_int), ("wavesCount", ctypes.c_float),
                ("reserved", ctypes.c_int * 4)]


def load(name, hint="source scripts/device/env.sh (CUDA 13's cuBLAS on LD_LIBRARY_PATH)"):
    try:
        return ctypes.CDLL(name)
    except OSError as e:
        print(f"direct_blas: cannot load {name} ({e}): {hint}", file=sys.stderr)
        sys.exit(2)


def loaded_path(soname):
    """The file the dynamic loader resolved soname to in this process."""
    with open("/proc/self/maps") as f:
        for line in f:
            if soname in line:
                return line.split()[-1]
    return soname


class Driver:
    """The few CUDA driver calls the timing needs, each checked."""

    def __init__(self):
        self.lib = load("libcuda.so.1", "an NVIDIA driver is needed")
        self.check("cuInit", 0)
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self.check("cuDeviceGet", ctypes.byref(dev), 0)
        self.check("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        self.check("cuCtxSetCurrent", ctx)
        self.stream = ctypes.c_void_p()
        self.check("cuStreamCreate", ctypes.byref(self.stream), 1)  # non-blocking

    def check(self, fn, *args):
        r = getattr(self.lib, fn)(*args)
        if r != 0:
            raise Failed(f"{fn} returned CUDA error {r}")

    def alloc(self, nbytes):
        p = ctypes.c_uint64()
        self.check("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(nbytes))
        return p.value

    def fill(self, ptr, elems, tile):
        """The buffer of `elems` 16-bit values, the tile copied over it end to end."""
        tile_elems, done = len(tile) // 2, 0
        while done < elems:
            n = min(tile_elems, elems - done)
            self.check("cuMemcpyHtoD_v2", ctypes.c_uint64(ptr + 2 * done), tile,
                       ctypes.c_size_t(2 * n))
            done += n

    def event(self):
        e = ctypes.c_void_p()
        self.check("cuEventCreate", ctypes.byref(e), 0)
        return e

    def record(self, e):
        self.check("cuEventRecord", e, self.stream)

    def elapsed_ms(self, start, stop):
        self.check("cuEventSynchronize", stop)
        ms = ctypes.c_float()
        self.check("cuEventElapsedTime", ctypes.byref(ms), start, stop)
        return ms.value

    def sync(self):
        self.check("cuStreamSynchronize", self.stream)


def blas_check(fn, status):
    if status != 0:
        raise Failed(f"{fn} returned cuBLAS status {status}")


def random_tile(dtype, elems=1 << 20, seed=1):
    """`elems` random 16-bit floats in (-1, 1), never zero: a random sign, an exponent of
    2^-5 .. 2^-1 and a random mantissa."""
    rng = random.Random(seed)
    out = array("H", bytes(2 * elems))
    for i in range(elems):
        r = rng.getrandbits(32)
        if dtype == "fp16":
            out[i] = ((r & 1) << 15) | ((10 + (r >> 1) % 5) << 10) | ((r >> 8) & 0x3FF)
        else:
            out[i] = ((r & 1) << 15) | ((122 + (r >> 1) % 5) << 7) | ((r >> 8) & 0x7F)
    return out.tobytes()


def make_call(drv, op, m, n, k, dtype):
    """The library call (a function enqueuing it on drv.stream) on random operands."""
    t = CUDA_R_16F if dtype == "fp16" else CUDA_R_16BF
    tile = random_tile(dtype)
    a, b, c = drv.alloc(2 * m * k), drv.alloc(2 * k * n), drv.alloc(2 * m * n)
    drv.fill(a, m * k, tile)
    drv.fill(b, k * n, tile[2 * 4099:] + tile[:2 * 4099])  # not A's sequence
    ws = drv.alloc(WORKSPACE_BYTES)
    drv.check("cuMemsetD8_v2", ctypes.c_uint64(ws), 0, ctypes.c_size_t(WORKSPACE_BYTES))
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    if op == "gemm":
        blas = load("libcublas.so.13")
        h = ctypes.c_void_p()
        blas_check("cublasCreate_v2", blas.cublasCreate_v2(ctypes.byref(h)))
        blas_check("cublasSetStream_v2", blas.cublasSetStream_v2(h, drv.stream))
        blas_check("cublasSetWorkspace_v2", blas.cublasSetWorkspace_v2(
            h, ctypes.c_void_p(ws), ctypes.c_size_t(WORKSPACE_BYTES)))

        def call():  # row-major C = A.B as the tool calls it: C^T = B^T . A^T
            blas_check("cublasGemmEx", blas.cublasGemmEx(
                h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, ctypes.byref(one),
                ctypes.c_void_p(b), t, n, ctypes.c_void_p(a), t, k, ctypes.byref(zero),
                ctypes.c_void_p(c), t, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT))
        return call, loaded_path("libcublas.so.13")
    lt = load("libcublasLt.so.13")
    bias = drv.alloc(2 * n)
    drv.fill(bias, n, tile)
    h, desc, pref = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    blas_check("cublasLtCreate", lt.cublasLtCreate(ctypes.byref(h)))
    blas_check("cublasLtMatmulDescCreate", lt.cublasLtMatmulDescCreate(
        ctypes.byref(desc), CUBLAS_COMPUTE_32F, CUDA_R_32F))

    def set_attr(attr, value):
        blas_check("cublasLtMatmulDescSetAttribute", lt.cublasLtMatmulDescSetAttribute(
            desc, attr, ctypes.byref(value), ctypes.c_size_t(ctypes.sizeof(value))))
    set_attr(LT_DESC_EPILOGUE, ctypes.c_int(LT_EPILOGUE_GELU_BIAS))
    set_attr(LT_DESC_BIAS_DATA_TYPE, ctypes.c_int(t))
    set_attr(LT_DESC_BIAS_POINTER, ctypes.c_uint64(bias))

    def layout(rows, cols, ld):
        lay = ctypes.c_void_p()
        blas_check("cublasLtMatrixLayoutCreate", lt.cublasLtMatrixLayoutCreate(
            ctypes.byref(lay), t, ctypes.c_uint64(rows), ctypes.c_uint64(cols),
            ctypes.c_int64(ld)))
        return lay
    la, lb, lc = layout(n, k, n), layout(k, m, k), layout(n, m, n)  # as src/kernels/cublaslt.rs
    blas_check("cublasLtMatmulPreferenceCreate",
               lt.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)))
    wsb = ctypes.c_size_t(WORKSPACE_BYTES)
    blas_check("cublasLtMatmulPreferenceSetAttribute", lt.cublasLtMatmulPreferenceSetAttribute(
        pref, LT_PREF_MAX_WORKSPACE_BYTES, ctypes.byref(wsb), ctypes.c_size_t(8)))
    heur, found = HeuristicResult(), ctypes.c_int()
    blas_check("cublasLtMatmulAlgoGetHeuristic", lt.cublasLtMatmulAlgoGetHeuristic(
        h, desc, la, lb, lc, lc, pref, 1, ctypes.byref(heur), ctypes.byref(found)))
    if found.value < 1:
        raise Failed(f"cuBLASLt has no GELU_BIAS algorithm for {m}x{n}x{k}")

    def call():
        blas_check("cublasLtMatmul", lt.cublasLtMatmul(
            h, desc, ctypes.byref(one), ctypes.c_void_p(b), la, ctypes.c_void_p(a), lb,
            ctypes.byref(zero), ctypes.c_void_p(c), lc, ctypes.c_void_p(c), lc,
            ctypes.byref(heur.algo), ctypes.c_void_p(ws), ctypes.c_size_t(WORKSPACE_BYTES),
            drv.stream))
    return call, loaded_path("libcublasLt.so.13")


def make_flush(drv, kind):
    """Enqueues the L2 flush: a 256 MiB read (cublasSasum, its result left on the GPU) or a
    256 MiB zeroing."""
    buf = drv.alloc(FLUSH_BYTES)
    drv.check("cuMemsetD8_v2", ctypes.c_uint64(buf), 0, ctypes.c_size_t(FLUSH_BYTES))
    if kind == "write":
        return lambda: drv.check("cuMemsetD32Async", ctypes.c_uint64(buf), 0,
                                 ctypes.c_size_t(FLUSH_BYTES // 4), drv.stream)
    blas = load("libcublas.so.13")
    h = ctypes.c_void_p()
    blas_check("cublasCreate_v2", blas.cublasCreate_v2(ctypes.byref(h)))
    blas_check("cublasSetStream_v2", blas.cublasSetStream_v2(h, drv.stream))
    blas_check("cublasSetPointerMode_v2",
               blas.cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE))
    result = drv.alloc(4)
    return lambda: blas_check("cublasSasum_v2", blas.cublasSasum_v2(
        h, FLUSH_BYTES // 4, ctypes.c_void_p(buf), 1, ctypes.c_void_p(result)))


def measure(drv, call, flush, bursts, per_burst, warmup=5):
    for _ in range(warmup):
        flush()
        call()
    drv.sync()
    start, stop, times = drv.event(), drv.event(), []
    for _ in range(bursts):
        for _ in range(per_burst):
            flush()
            drv.record(start)
            call()
            drv.record(stop)
            times.append(drv.elapsed_ms(start, stop))
        time.sleep(0.2)  # rest: the power cap never sets in
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", choices=["gemm", "gelubias"])
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="fp16")
    ap.add_argument("--flush", choices=["read", "write"], default="read")
    ap.add_argument("--bursts", type=int, default=8)
    ap.add_argument("--per-burst", type=int, default=12)
    args = ap.parse_args()
    if min(args.m, args.n, args.k) < 1 or args.bursts < 1 or args.per_burst < 1:
        ap.error("M, N, K, --bursts and --per-burst must be positive")
    try:
        drv = Driver()
        call, lib = make_call(drv, args.op, args.m, args.n, args.k, args.dtype)
        flush = make_flush(drv, args.flush)
        times = measure(drv, call, flush, args.bursts, args.per_burst)
    except Failed as e:
        print(f"direct_blas: {e}", file=sys.stderr)
        return 1
    print(json.dumps({"median_ms": statistics.median(times), "samples": len(times),
                      "min_ms": min(times), "max_ms": max(times), "library": lib,
                      "flush": args.flush, "op": args.op, "shape": [args.m, args.n, args.k],
                      "dtype": args.dtype}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
