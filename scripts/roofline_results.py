"""Shared helpers for the scripts that read a `roofline report` results.json."""
import json


def load(path):
    """The parsed results file."""
    with open(path) as f:
        return json.load(f)


def ceiling(d, name):
    """A measured ceiling's value by name (e.g. "hbm_copy", in its unit)."""
    return next(c["value"] for c in d["run"]["ceilings"] if c["name"] == name)


def finder(recs):
    """find(experiment, kernel, impl, cache="cold", timing="kernel", dtype="fp16", **shape) ->
    record or None. A record without a dtype is fp16 (as `roofline` reads it); the square sweep
    holds fp16 and bf16 records of the same shapes."""
    def find(exp, kernel, impl, cache="cold", timing="kernel", dtype="fp16", **shape):
        for r in recs:
            if (r["experiment"], r["kernel"], r["impl"], r["cache"], r["timing"],
                    r.get("dtype", "fp16")) == (exp, kernel, impl, cache, timing, dtype) and all(
                        r["shape"].get(k) == v for k, v in shape.items()):
                return r
        return None
    return find
