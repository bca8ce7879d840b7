#!/usr/bin/env python3
"""Where the coefficients of rl_gelu_erf_q (cuda/gelu.cuh, GEMM+GELU v20) come from.

Fits q(x) = -log2(e) logit(Phi(x)) as x P(x^2), P of degree 6, on |x| <= 5.5 by weighted
minimax (Lawson iterations; the weight Phi (1 - Phi) x turns an error in q into the error
of x Phi(x)), rounds the coefficients to float32, then prints them and the error of
x / (1 + 2^q) evaluated in float32 against the float64 x Phi(x), beside the error of the
erff form 0.5 x (1 + erf(x / sqrt 2)) in float32, per range of x. Needs numpy (a development
tool: the build and the tests do not run it; the CPU test in src/kernels/gemm_gelu.rs checks
the committed coefficients).
"""
from math import erf, erfc, log, sqrt

import numpy as np

C, DEGREE = 5.5, 6
LOG2E = 1 / log(2)
phi = np.vectorize(lambda x: 0.5 * erfc(-x / sqrt(2)))
logit_phi = np.vectorize(lambda x: log(0.5 * erfc(-x / sqrt(2))) - log(0.5 * erfc(x / sqrt(2))))


def fit(n=6000, iters=60):
    k = np.arange(n)
    x = C * (np.cos(np.pi * (k + 0.5) / n) + 1) / 2 + 1e-9  # Chebyshev nodes on (0, C]
    y = -LOG2E * logit_phi(x) / x
    a = np.stack([(x / C) ** (2 * j) for j in range(DEGREE + 1)], 1)
    base = phi(x) * (1 - phi(x)) * x / LOG2E
    w = np.ones(n)
    for _ in range(iters):
        ww = base * np.sqrt(w)
        coef, *_ = np.linalg.lstsq(a * ww[:, None], y * ww, rcond=None)
        r = np.abs((a @ coef - y) * base)
        w = w * (r + 1e-20)
        w /= w.sum()
    return [float(np.float32(coef[j] / C ** (2 * j))) for j in range(DEGREE + 1)]


def fast_gelu(c, xs):
    xs = xs.astype(np.float32)
    x2 = np.minimum(xs * xs, np.float32(C * C)).astype(np.float32)
    p = np.float32(c[-1])
    for j in range(len(c) - 2, -1, -1):
        p = (p * x2 + np.float32(c[j])).astype(np.float32)
    with np.errstate(over="ignore"):
        e = np.exp2((xs * p).astype(np.float32)).astype(np.float32)
        return (xs / (np.float32(1) + e)).astype(np.float64)


def erff_gelu(xs):
    out = []
    for x in xs.astype(np.float32):
        z = float(np.float32(x * np.float32(0.70710677)))
        out.append(np.float32(0.5) * x * (np.float32(1) + np.float32(erf(z))))
    return np.array(out, dtype=np.float64)


def main():
    c = fit()
    print("P, highest power first:", ", ".join("%.9e" % v for v in reversed(c)))
    xs = np.linspace(-8, 8, 160001)
    ref = xs * phi(xs)
    ours, theirs = np.abs(fast_gelu(c, xs) - ref), np.abs(erff_gelu(xs) - ref)
    print("max |error| / max(1, |x|): %.2e" % (ours / np.maximum(1, np.abs(xs))).max())
    for lo, hi in [(-8, -5), (-5, -3), (-3, -1), (-1, 1), (1, 3), (3, 8)]:
        m = (xs >= lo) & (xs < hi)
        print("x in [%g, %g): abs error %.2e (erff form %.2e)" % (lo, hi, ours[m].max(), theirs[m].max()))


if __name__ == "__main__":
    main()
