//! The readings of the GEMM experiments: the square sweep and fusion.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::results::export::fmt_pct;
use crate::results::schema::{Record, ResultsFile, Shape};

use super::helpers::{dominant, max_by, pct, tf, value_with_unit};

pub(super) fn square_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let Some((cache, timing)) = dominant(recs, |r| (r.cache.clone(), r.timing.clone())) else {
        return lines;
    };
    // The main reading is of the dominant dtype (fp16: every variant); the others (bf16 pairs
    // at the large squares) get a line of their own, below.
    let Some(dtype) = dominant(recs, |r| r.dtype.clone()) else {
        return lines;
    };
    let all: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.cache == cache && r.timing == timing && r.shape.is_square() && r.tflops > 0.0)
        .collect();
    let sel: Vec<&Record> = all.iter().copied().filter(|r| r.dtype == dtype).collect();
    let sizes: BTreeSet<u64> = sel.iter().map(|r| r.shape.primary()).collect();
    let Some(&largest) = sizes.iter().next_back() else {
        return lines;
    };
    let n_ref = if sizes.contains(&4096) { 4096 } else { largest };
    let at = |n: u64| sel.iter().copied().filter(move |r| r.shape.primary() == n);
    let best_ours = |n: u64| max_by(at(n).filter(|r| r.impl_ == "ours"), |r| r.tflops);
    let cublas = |n: u64| max_by(at(n).filter(|r| r.impl_ == "cublas"), |r| r.tflops);
    let wmma = results.ceiling("tensor_wmma");
    let cublas_ceiling = results.ceiling(&format!("tensor_cublas_{dtype}"));

    if let Some(o) = best_ours(n_ref) {
        let mut s = format!(
            "At {n_ref}³ ({cache} cache, {timing} timing) our best variant, {}, reaches {}",
            if o.variant.is_empty() {
                "ours"
            } else {
                &o.variant
            },
            tf(o.tflops)
        );
        let mut rel = Vec::new();
        if let Some(c) = cublas(n_ref) {
            rel.push(format!(
                "{} of cuBLAS ({})",
                pct(o.tflops, c.tflops),
                tf(c.tflops)
            ));
        }
        if let Some(w) = wmma {
            rel.push(format!(
                "{} of the WMMA ceiling ({})",
                pct(o.tflops, w.value),
                value_with_unit(w)
            ));
        }
        if !rel.is_empty() {
            let _ = write!(s, ": {}", rel.join(" and "));
        }
        let _ = write!(
            s,
            "; it is {}-bound at {} of attainable.",
            o.bound,
            fmt_pct(o.pct_attainable)
        );
        lines.push(s);

        let variants: Vec<String> = at(n_ref)
            .filter(|r| r.impl_ == "ours")
            .map(|r| {
                let mut v = format!(
                    "{} {}",
                    if r.variant.is_empty() {
                        "ours"
                    } else {
                        &r.variant
                    },
                    tf(r.tflops)
                );
                if let Some(c) = cublas(n_ref) {
                    let _ = write!(v, " ({} of cuBLAS)", pct(r.tflops, c.tflops));
                }
                v
            })
            .collect();
        if variants.len() > 1 {
            lines.push(format!(
                "Our variants at {n_ref}³: {}.",
                variants.join(", ")
            ));
        }
    }
    if sizes.len() > 1 {
        let shares: Vec<String> = sizes
            .iter()
            .filter_map(|&n| {
                let (o, c) = (best_ours(n)?, cublas(n)?);
                Some(format!("{} at {n}³", pct(o.tflops, c.tflops)))
            })
            .collect();
        if shares.len() > 1 {
            lines.push(format!(
                "Best of ours as a share of cuBLAS: {}.",
                shares.join(", ")
            ));
        }
    }
    if let (Some(c), Some(ceil)) = (cublas(largest), cublas_ceiling) {
        lines.push(format!(
            "cuBLAS at {largest}³ reaches {}, {} of the measured {} ceiling ({}).",
            tf(c.tflops),
            pct(c.tflops, ceil.value),
            ceil.name,
            value_with_unit(ceil)
        ));
    }
    lines.extend(other_dtype_lines(&all, &dtype));
    lines
}

/// One line per dtype other than the main one: ours against cuBLAS of that dtype at each size
/// both ran ("In bf16: v12 612.3 TFLOP/s at 4096³, 97.1% of cuBLAS's 630.5; ...").
fn other_dtype_lines(all: &[&Record], main: &str) -> Vec<String> {
    let others: BTreeSet<&str> = all
        .iter()
        .map(|r| r.dtype.as_str())
        .filter(|d| *d != main)
        .collect();
    let mut lines = Vec::new();
    for d in others {
        let of_d: Vec<&Record> = all.iter().copied().filter(|r| r.dtype == d).collect();
        let sizes: BTreeSet<u64> = of_d.iter().map(|r| r.shape.primary()).collect();
        let pairs: Vec<String> = sizes
            .iter()
            .filter_map(|&n| {
                let at = of_d.iter().copied().filter(|r| r.shape.primary() == n);
                let o = max_by(at.clone().filter(|r| r.impl_ == "ours"), |r| r.tflops)?;
                let c = max_by(at.filter(|r| r.impl_ == "cublas"), |r| r.tflops)?;
                Some(format!(
                    "{} {} at {n}³, {} of cuBLAS's {}",
                    if o.variant.is_empty() {
                        "ours"
                    } else {
                        &o.variant
                    },
                    tf(o.tflops),
                    pct(o.tflops, c.tflops),
                    tf(c.tflops)
                ))
            })
            .collect();
        if !pairs.is_empty() {
            lines.push(format!("In {d}: {}.", pairs.join("; ")));
        }
    }
    lines
}

pub(super) fn gemm_nk(shape: &Shape) -> Option<(u64, u64)> {
    match *shape {
        Shape::Gemm { n, k, .. } => Some((n, k)),
        _ => None,
    }
}

pub(super) fn fusion_reading(recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let Some((cache, timing)) = dominant(recs, |r| (r.cache.clone(), r.timing.clone())) else {
        return lines;
    };
    let Some(nk) = dominant(recs, |r| gemm_nk(&r.shape)) else {
        return lines;
    };
    let sel: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.cache == cache && r.timing == timing && gemm_nk(&r.shape) == nk)
        .collect();
    let ms: BTreeSet<u64> = sel.iter().map(|r| r.shape.primary()).collect();
    let time = |impl_: &str, m: u64| -> Option<&Record> {
        sel.iter()
            .copied()
            .filter(|r| r.impl_ == impl_ && r.shape.primary() == m && r.median_ms > 0.0)
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
    };
    let ctx = match nk {
        Some((n, k)) => format!("N={n} K={k}, {cache} cache, {timing} timing"),
        None => format!("{cache} cache, {timing} timing"),
    };

    // fused (ours) against our unfused pair
    let savings: Vec<(u64, f64)> = ms
        .iter()
        .filter_map(|&m| {
            let (f, u) = (time("ours", m)?, time("unfused", m)?);
            Some((m, 100.0 * (1.0 - f.median_ms / u.median_ms)))
        })
        .collect();
    if !savings.is_empty() {
        let list: Vec<String> = savings
            .iter()
            .map(|(m, s)| format!("{} at M={m}", fmt_pct(*s)))
            .collect();
        lines.push(format!(
            "Time saved by our fused kernel against our unfused GEMM + epilogue ({ctx}): {}.",
            list.join(", ")
        ));
        let prefix: Vec<&(u64, f64)> = savings.iter().take_while(|(_, s)| *s > 0.0).collect();
        if let Some(&&(t, _)) = prefix.last() {
            let min = prefix.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
            if prefix.len() == savings.len() {
                lines.push(format!(
                    "Fusion is faster at every M measured, saving at least {}.",
                    fmt_pct(min)
                ));
            } else {
                lines.push(format!(
                    "Fusion saves at least {} at M ≤ {t}.",
                    fmt_pct(min)
                ));
            }
        } else {
            lines.push(format!(
                "Fusion does not save time at the smallest M measured (M={}).",
                savings[0].0
            ));
        }
    }
    // library: cuBLASLt epilogue against cuBLAS + separate epilogue
    let lib: Vec<String> = ms
        .iter()
        .filter_map(|&m| {
            let (lt, un) = (time("cublaslt", m)?, time("unfused_cublas", m)?);
            Some(format!(
                "{} at M={m}",
                fmt_pct(100.0 * (1.0 - lt.median_ms / un.median_ms))
            ))
        })
        .collect();
    if !lib.is_empty() {
        lines.push(format!(
            "cuBLASLt's fused epilogue against cuBLAS GEMM + separate epilogue saves {}.",
            lib.join(", ")
        ));
    }
    // ours against cuBLASLt
    let vs: Vec<String> = ms
        .iter()
        .filter_map(|&m| {
            let (f, lt) = (time("ours", m)?, time("cublaslt", m)?);
            Some(format!("{:.2}× at M={m}", f.median_ms / lt.median_ms))
        })
        .collect();
    if !vs.is_empty() {
        lines.push(format!(
            "Our fused kernel's time relative to cuBLASLt: {} (above 1× is slower).",
            vs.join(", ")
        ));
    }
    lines
}
