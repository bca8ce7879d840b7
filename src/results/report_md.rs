//! The markdown report (report.md): run header, ceilings, the roofline,
//! one section per experiment (table, chart, a short reading), correctness
//! and measurement quality.
//!
//! Every figure in the generated reading is taken or computed from the
//! results file (records and ceilings); nothing is assumed about the device.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::plot::{chart_file_for, ROOFLINE_FILE};
use crate::results::export::{
    fmt_err, fmt_num, fmt_pct, fmt_time_ms, markdown_rows, markdown_table,
};
use crate::results::schema::{format_bytes, Ceiling, CeilingKind, Record, ResultsFile, Shape};

/// Experiments in the order the report shows them; others follow in file order.
const ORDER: [&str; 6] = [
    "square",
    "decode",
    "fusion",
    "elementwise",
    "bench",
    "check",
];

fn title_of(experiment: &str) -> String {
    match experiment {
        "square" => "Square GEMM".into(),
        "decode" => "Decode (GEMV / skinny GEMM)".into(),
        "fusion" => "Fused GEMM + bias + GELU".into(),
        "elementwise" => "Elementwise and normalization kernels".into(),
        "bench" => "Single benchmarks".into(),
        "check" => "Correctness checks".into(),
        other => other.to_string(),
    }
}

/// Renders report.md. `charts` are paths as they should appear in the
/// markdown (relative to the report); each is embedded in the section it
/// belongs to by file name (`roofline.svg`, `square.svg`, `decode.svg`,
/// `elementwise.svg`, `fusion.svg`), others under "Other charts".
pub fn render_report(results: &ResultsFile, charts: &[PathBuf]) -> String {
    let mut out = String::new();
    let run = &results.run;
    let device = if run.device.is_empty() {
        "unknown device"
    } else {
        &run.device
    };
    let mut used_charts: Vec<&PathBuf> = Vec::new();
    let mut chart_named = |name: &str| -> Option<String> {
        let p = charts
            .iter()
            .find(|p| p.file_name().is_some_and(|f| f == name))?;
        used_charts.push(p);
        Some(md_path(p))
    };

    let _ = writeln!(out, "# roofline-lab report: {device}\n");
    let exps = ordered_experiments(results);
    let header = vec![
        vec!["Device".to_string(), device.to_string()],
        vec!["Driver".into(), or_dash(&run.driver)],
        vec!["CUDA runtime".into(), or_dash(&run.cuda_runtime)],
        vec!["Commit".into(), code_or_dash(&run.git_commit)],
        vec!["Date".into(), or_dash(&run.date)],
        vec!["Tool version".into(), or_dash(&run.tool_version)],
        vec![
            "Records".into(),
            format!(
                "{} in {} experiment(s): {}",
                results.records.len(),
                exps.len(),
                exps.join(", ")
            ),
        ],
    ];
    out.push_str(&markdown_rows(&["Run", ""], &[false, false], &header));
    out.push('\n');

    // ---- ceilings
    out.push_str("## Ceilings\n\n");
    if run.ceilings.is_empty() {
        out.push_str("No ceilings were recorded.\n\n");
    } else {
        out.push_str(&ceilings_table(results));
        out.push('\n');
    }

    // ---- roofline
    out.push_str("## Roofline\n\n");
    if let Some(p) = chart_named(ROOFLINE_FILE) {
        let _ = writeln!(out, "![Roofline: {device}]({p})\n");
    }
    push_reading(&mut out, roofline_reading(results));

    // ---- experiments
    for exp in &exps {
        let recs: Vec<&Record> = results.records_of(exp).collect();
        let _ = writeln!(out, "## {} (`{exp}`)\n", title_of(exp));
        out.push_str(&markdown_table(&recs, false));
        out.push('\n');
        if let Some(file) = chart_file_for(exp) {
            if let Some(p) = chart_named(file) {
                let _ = writeln!(out, "![{} chart]({p})\n", title_of(exp));
            }
        }
        let reading = match *exp {
            "square" => square_reading(results, &recs),
            "decode" => decode_reading(results, &recs),
            "fusion" => fusion_reading(&recs),
            "elementwise" => elementwise_reading(results, &recs),
            _ => generic_reading(&recs),
        };
        push_reading(&mut out, reading);
    }

    let others: Vec<&PathBuf> = charts.iter().filter(|c| !used_charts.contains(c)).collect();
    if !others.is_empty() {
        out.push_str("## Other charts\n\n");
        for p in others {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(out, "![{name}]({})\n", md_path(p));
        }
    }

    out.push_str("## Correctness\n\n");
    push_bullets(&mut out, correctness(results));
    out.push_str("## Measurement quality\n\n");
    push_bullets(&mut out, quality(results));
    out
}

// ------------------------------------------------------------ small helpers

fn md_path(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/").replace(' ', "%20")
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        s.to_string()
    }
}

fn code_or_dash(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        format!("`{s}`")
    }
}

fn push_reading(out: &mut String, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    out.push_str("**Reading.**\n\n");
    push_bullets(out, lines);
}

fn push_bullets(out: &mut String, lines: Vec<String>) {
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
    out.push('\n');
}

fn ordered_experiments(results: &ResultsFile) -> Vec<&str> {
    let present = results.experiments();
    let mut out: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|e| present.contains(e))
        .collect();
    out.extend(present.into_iter().filter(|e| !ORDER.contains(e)));
    out
}

fn pct(a: f64, b: f64) -> String {
    fmt_pct(100.0 * a / b)
}

fn gbs(v: f64) -> String {
    format!("{} GB/s", fmt_num(v))
}

fn tf(v: f64) -> String {
    format!("{} TFLOP/s", fmt_num(v))
}

/// A ceiling's value as recorded, to at most four significant digits.
fn value_with_unit(c: &Ceiling) -> String {
    let v = if c.value.is_finite() && c.value != 0.0 {
        let digits = (4 - 1 - c.value.abs().log10().floor() as i32).max(0) as usize;
        format!("{:.*}", digits, c.value)
            .parse::<f64>()
            .map_or_else(|_| fmt_num(c.value), |x| format!("{x}"))
    } else {
        fmt_num(c.value)
    };
    format!("{v} {}", c.unit)
}

/// "1 record", "3 records".
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn variant_name(r: &Record) -> String {
    if r.impl_ == "ours" && !r.variant.is_empty() {
        format!("ours {}", r.variant)
    } else {
        r.impl_label()
    }
}

/// The most common value of `f` (ties: first seen).
fn dominant<T: PartialEq + Clone>(recs: &[&Record], f: impl Fn(&Record) -> T) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for r in recs {
        let v = f(r);
        match counts.iter_mut().find(|(x, _)| *x == v) {
            Some(c) => c.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    let max = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == max).map(|(v, _)| v)
}

fn max_by<'a>(
    it: impl Iterator<Item = &'a Record>,
    f: impl Fn(&Record) -> f64,
) -> Option<&'a Record> {
    it.filter(|r| f(r).is_finite())
        .max_by(|a, b| f(a).total_cmp(&f(b)))
}

/// The datasheet ceiling a measured one is compared with, if present.
fn datasheet_for<'a>(results: &'a ResultsFile, c: &Ceiling) -> Option<&'a Ceiling> {
    let n = c.name.as_str();
    let mut cands: Vec<String> = vec![format!("datasheet_{n}")];
    if n.starts_with("hbm") {
        cands.push("datasheet_hbm".into());
    } else if n.starts_with("l2") {
        cands.push("datasheet_l2".into());
    } else if n.starts_with("tensor") {
        match ["fp16", "bf16", "fp8", "tf32", "int8"]
            .iter()
            .find(|d| n.contains(*d))
        {
            Some(d) => cands.push(format!("datasheet_tensor_{d}")),
            // dtype-less tensor ceilings (WMMA) come from the fp16 kernels
            None => cands.push("datasheet_tensor_fp16".into()),
        }
    } else if n.starts_with("fp32") {
        cands.push("datasheet_fp32".into());
    } else if n.starts_with("fp16") {
        cands.push("datasheet_fp16".into());
    }
    cands.iter().find_map(|name| {
        results
            .run
            .ceilings
            .iter()
            .find(|d| d.is_datasheet() && d.name == *name && d.kind == c.kind)
    })
}

fn ceilings_table(results: &ResultsFile) -> String {
    let mut rows = Vec::new();
    let mut paired: Vec<&str> = Vec::new();
    for c in results.run.ceilings.iter().filter(|c| !c.is_datasheet()) {
        let ds = datasheet_for(results, c);
        if let Some(d) = ds {
            paired.push(&d.name);
        }
        rows.push(vec![
            c.label.clone(),
            format!("`{}`", c.name),
            c.kind.to_string(),
            value_with_unit(c),
            ds.map_or("—".into(), value_with_unit),
            ds.map_or("—".into(), |d| pct(c.value, d.value)),
        ]);
    }
    for d in results
        .run
        .ceilings
        .iter()
        .filter(|c| c.is_datasheet() && !paired.contains(&c.name.as_str()))
    {
        rows.push(vec![
            d.label.clone(),
            format!("`{}`", d.name),
            d.kind.to_string(),
            "—".into(),
            value_with_unit(d),
            "—".into(),
        ]);
    }
    markdown_rows(
        &[
            "Ceiling",
            "id",
            "kind",
            "measured",
            "datasheet",
            "% of datasheet",
        ],
        &[false, false, false, true, true, true],
        &rows,
    )
}

fn launch_floor<'a>(results: &'a ResultsFile, timing: &str) -> Option<&'a Ceiling> {
    let name = if timing == "graph" {
        "launch_floor_graph"
    } else {
        "launch_floor_single"
    };
    results
        .ceiling(name)
        .filter(|c| c.kind == CeilingKind::Latency && c.value > 0.0)
}

// ------------------------------------------------------------------ readings

fn roofline_reading(results: &ResultsFile) -> Vec<String> {
    let recs = &results.records;
    if recs.is_empty() {
        return vec!["The results hold no records.".into()];
    }
    let mut lines = Vec::new();
    let mut bounds: Vec<(String, usize)> = Vec::new();
    for r in recs {
        match bounds.iter_mut().find(|(b, _)| *b == r.bound) {
            Some(b) => b.1 += 1,
            None => bounds.push((r.bound.clone(), 1)),
        }
    }
    let parts: Vec<String> = bounds
        .iter()
        .map(|(b, n)| format!("{n} {b}-bound"))
        .collect();
    lines.push(format!(
        "{}: {}.",
        count(recs.len(), "record"),
        parts.join(", ")
    ));
    let no_flops = recs.iter().filter(|r| r.flops <= 0.0).count();
    if no_flops > 0 {
        lines.push(format!(
            "{} without floating-point work (e.g. copy) cannot be placed on the roofline chart; the sweep charts show them.",
            count(no_flops, "record")
        ));
    }
    if let Some(best) = max_by(recs.iter().filter(|r| r.pct_attainable <= 100.0), |r| {
        r.pct_attainable
    }) {
        lines.push(format!(
            "Closest to its roof (at most 100%): {} {} at {} ({} {}), {} of attainable.",
            best.kernel,
            variant_name(best),
            best.shape.label(),
            best.cache,
            best.timing,
            fmt_pct(best.pct_attainable)
        ));
    }
    let above: Vec<&Record> = recs.iter().filter(|r| r.pct_attainable > 100.0).collect();
    if !above.is_empty() {
        let hot = above.iter().filter(|r| r.cache == "hot").count();
        lines.push(format!(
            "{} above 100% of attainable ({} with a hot cache): the prediction from the ceilings does not hold for data served from cache.",
            count(above.len(), "record"),
            hot
        ));
    }
    lines
}

fn square_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let Some((cache, timing)) = dominant(recs, |r| (r.cache.clone(), r.timing.clone())) else {
        return lines;
    };
    let sel: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.cache == cache && r.timing == timing && r.shape.is_square() && r.tflops > 0.0)
        .collect();
    let sizes: BTreeSet<u64> = sel.iter().map(|r| r.shape.primary()).collect();
    let Some(&largest) = sizes.iter().next_back() else {
        return lines;
    };
    let n_ref = if sizes.contains(&4096) { 4096 } else { largest };
    let at = |n: u64| sel.iter().copied().filter(move |r| r.shape.primary() == n);
    let best_ours = |n: u64| max_by(at(n).filter(|r| r.impl_ == "ours"), |r| r.tflops);
    let cublas = |n: u64| max_by(at(n).filter(|r| r.impl_ == "cublas"), |r| r.tflops);
    let dtype = sel.first().map(|r| r.dtype.clone()).unwrap_or_default();
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
    lines
}

fn gemm_nk(shape: &Shape) -> Option<(u64, u64)> {
    match *shape {
        Shape::Gemm { n, k, .. } => Some((n, k)),
        _ => None,
    }
}

fn decode_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(timing) = dominant(recs, |r| r.timing.clone()) else {
        return lines;
    };
    let gemm: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.timing == timing && gemm_nk(&r.shape).is_some())
        .collect();
    let nks: Vec<(u64, u64)> = gemm.iter().filter_map(|r| gemm_nk(&r.shape)).collect();
    let Some(nk) = (if nks.contains(&(4096, 4096)) {
        Some((4096, 4096))
    } else {
        dominant(&gemm, |r| gemm_nk(&r.shape).unwrap_or_default())
    }) else {
        return lines;
    };
    let sel: Vec<&Record> = gemm
        .into_iter()
        .filter(|r| gemm_nk(&r.shape) == Some(nk))
        .collect();
    let ms: BTreeSet<u64> = sel.iter().map(|r| r.shape.primary()).collect();
    let (Some(&m0), Some(&m1)) = (ms.iter().next(), ms.iter().next_back()) else {
        return lines;
    };
    let pick = |impl_: &str, m: u64, cache: &str, f: &dyn Fn(&Record) -> f64| {
        max_by(
            sel.iter()
                .copied()
                .filter(|r| r.impl_ == impl_ && r.shape.primary() == m && r.cache == cache),
            f,
        )
    };
    let hbm = results.ceiling("hbm_copy");
    let l2 = results.ceiling("l2_read");
    let (n, k) = nk;
    let of_hbm = |v: f64| {
        hbm.map_or(String::new(), |h| {
            format!(
                " = {} of HBM copy ({})",
                pct(v, h.value),
                value_with_unit(h)
            )
        })
    };

    for impl_ in ["ours", "cublas"] {
        let cold = pick(impl_, m0, "cold", &|r| r.gbs);
        let hot = pick(impl_, m0, "hot", &|r| r.gbs);
        let Some(any) = cold.or(hot) else { continue };
        let mut s = format!(
            "Decode M={m0} at N={n} K={k} ({timing} timing), {}:",
            variant_name(any)
        );
        if let Some(c) = cold {
            let _ = write!(s, " cold {}{}", gbs(c.gbs), of_hbm(c.gbs));
        }
        if let Some(h) = hot {
            let _ = write!(
                s,
                "{} hot {}",
                if cold.is_some() { ";" } else { "" },
                gbs(h.gbs)
            );
            match hbm {
                Some(hb) if h.gbs > hb.value => {
                    let _ = write!(
                        s,
                        ", {:.2}× HBM copy: more than HBM can deliver, so the {} working set is read from on-chip cache",
                        h.gbs / hb.value,
                        format_bytes(h.bytes)
                    );
                    if let Some(l) = l2 {
                        let _ = write!(
                            s,
                            " ({} of the L2 read ceiling, {})",
                            pct(h.gbs, l.value),
                            value_with_unit(l)
                        );
                    }
                }
                Some(hb) => {
                    let _ = write!(s, " ({} of HBM copy)", pct(h.gbs, hb.value));
                }
                None => {}
            }
        }
        s.push('.');
        lines.push(s);
    }
    if let (Some(o), Some(c)) = (
        pick("ours", m0, "cold", &|r| r.gbs),
        pick("cublas", m0, "cold", &|r| r.gbs),
    ) {
        lines.push(format!(
            "At M={m0}, cold, ours reaches {} of cuBLAS's bandwidth.",
            pct(o.gbs, c.gbs)
        ));
    }
    if m1 != m0 {
        let cache = if sel.iter().any(|r| r.cache == "cold") {
            "cold"
        } else {
            "hot"
        };
        if let Some(o) = pick("ours", m1, cache, &|r| r.tflops) {
            let mut s = format!(
                "At M={m1} ({cache}) ours reaches {} ({}-bound, {} of attainable)",
                tf(o.tflops),
                o.bound,
                fmt_pct(o.pct_attainable)
            );
            if let Some(c) = pick("cublas", m1, cache, &|r| r.tflops) {
                let _ = write!(
                    s,
                    "; cuBLAS {}, so ours is {} of cuBLAS",
                    tf(c.tflops),
                    pct(o.tflops, c.tflops)
                );
            }
            s.push('.');
            lines.push(s);
        }
        // where the bound changes, for our kernel
        let ours: Vec<&Record> = ms
            .iter()
            .filter_map(|&m| pick("ours", m, cache, &|r| r.gbs))
            .collect();
        if let Some(first) = ours.first() {
            if let Some(w) = ours.windows(2).find(|w| w[1].bound != first.bound) {
                lines.push(format!(
                    "Our kernel is {}-bound up to M={} and {}-bound from M={} ({cache}).",
                    first.bound,
                    w[0].shape.primary(),
                    w[1].bound,
                    w[1].shape.primary()
                ));
            }
        }
    }
    lines
}

fn fusion_reading(recs: &[&Record]) -> Vec<String> {
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

fn elementwise_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let hbm = results.ceiling("hbm_copy");
    // One line per kernel, implementation and timing mode: single launches and graph
    // replays tell different stories at small sizes.
    let mut groups: Vec<(String, String, String)> = Vec::new();
    for r in recs {
        let k = (r.kernel.clone(), variant_name(r), r.timing.clone());
        if !groups.contains(&k) {
            groups.push(k);
        }
    }
    for (kernel, impl_name, timing) in groups {
        let of: Vec<&Record> = recs
            .iter()
            .copied()
            .filter(|r| {
                r.kernel == kernel
                    && variant_name(r) == impl_name
                    && r.timing == timing
                    && r.bytes > 0.0
            })
            .collect();
        let cold: Vec<&Record> = of.iter().copied().filter(|r| r.cache == "cold").collect();
        let Some(big) = max_by(cold.iter().copied(), |r| r.bytes) else {
            continue;
        };
        let rel = |v: f64| {
            hbm.map_or(String::new(), |h| {
                format!(" = {} of HBM copy", pct(v, h.value))
            })
        };
        let mut s = format!(
            "{kernel} ({impl_name}, {timing} timing): at {} moved (shape {}), cold {}{}",
            format_bytes(big.bytes),
            big.shape.label(),
            gbs(big.gbs),
            rel(big.gbs)
        );
        if let Some(small) = cold
            .iter()
            .copied()
            .filter(|r| r.bytes < big.bytes)
            .min_by(|a, b| a.bytes.total_cmp(&b.bytes))
        {
            let _ = write!(
                s,
                "; at {} moved, cold {}{}",
                format_bytes(small.bytes),
                gbs(small.gbs),
                rel(small.gbs)
            );
            if let Some(fl) = launch_floor(results, &small.timing) {
                let _ = write!(
                    s,
                    ", {} per call = {:.1}× the {} ({})",
                    fmt_time_ms(small.median_ms),
                    small.median_us() / fl.value,
                    fl.name,
                    value_with_unit(fl)
                );
            }
        }
        if let Some(hb) = hbm {
            let above: Vec<&Record> = of
                .iter()
                .copied()
                .filter(|r| r.cache == "hot" && r.gbs > hb.value)
                .collect();
            match max_by(above.iter().copied(), |r| r.gbs) {
                Some(top) => {
                    let sizes: Vec<String> = above.iter().map(|r| format_bytes(r.bytes)).collect();
                    let _ = write!(
                        s,
                        "; hot, above the HBM roof at {} moved (up to {:.2}× HBM copy at {}: served from L2)",
                        sizes.join(", "),
                        top.gbs / hb.value,
                        format_bytes(top.bytes)
                    );
                }
                None if of.iter().any(|r| r.cache == "hot") => {
                    s.push_str("; hot runs never beat the HBM roof");
                }
                None => {}
            }
        }
        s.push('.');
        lines.push(s);
    }
    lines
}

fn record_summary(r: &Record) -> String {
    let mut s = format!(
        "{} {} at {} ({} {}): {}",
        r.kernel,
        variant_name(r),
        r.shape.label(),
        r.cache,
        r.timing,
        fmt_time_ms(r.median_ms)
    );
    if r.flops > 0.0 {
        let _ = write!(s, ", {}", tf(r.tflops));
    }
    let _ = write!(
        s,
        ", {}; {}-bound at {} of attainable; {}.",
        gbs(r.gbs),
        r.bound,
        fmt_pct(r.pct_attainable),
        r.verification_label()
    );
    s
}

fn generic_reading(recs: &[&Record]) -> Vec<String> {
    const MAX: usize = 12;
    let mut lines: Vec<String> = recs.iter().take(MAX).map(|r| record_summary(r)).collect();
    if recs.len() > MAX {
        lines.push(format!(
            "… and {} more records (see the table).",
            recs.len() - MAX
        ));
    }
    lines
}

fn correctness(results: &ResultsFile) -> Vec<String> {
    let recs = &results.records;
    let verified = recs.iter().filter(|r| r.verified).count();
    let skipped: Vec<&Record> = recs
        .iter()
        .filter(|r| !r.verified && r.max_rel_err.is_none())
        .collect();
    let failed: Vec<&Record> = recs
        .iter()
        .filter(|r| !r.verified && r.max_rel_err.is_some())
        .collect();
    let mut lines = vec![format!(
        "{verified} of {} verified against the reference; {} skipped; {} failed.",
        count(recs.len(), "record"),
        skipped.len(),
        failed.len()
    )];
    for r in &failed {
        lines.push(format!(
            "FAILED: {} (max relative error {}).",
            r.key(),
            fmt_err(r.max_rel_err.unwrap_or(f64::NAN))
        ));
    }
    if !skipped.is_empty() {
        let names: Vec<String> = skipped.iter().map(|r| r.key().to_string()).collect();
        lines.push(format!("Skipped: {}.", names.join("; ")));
    }
    if let Some((r, e)) = recs
        .iter()
        .filter_map(|r| r.max_rel_err.filter(|e| e.is_finite()).map(|e| (r, e)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
    {
        lines.push(format!(
            "Worst relative error: {} ({}).",
            fmt_err(e),
            r.key()
        ));
    }
    lines
}

fn quality(results: &ResultsFile) -> Vec<String> {
    let recs = &results.records;
    let mut lines = Vec::new();
    if recs.is_empty() {
        return lines;
    }
    let mut noises: Vec<f64> = recs
        .iter()
        .map(|r| r.noise)
        .filter(|n| n.is_finite())
        .collect();
    noises.sort_by(f64::total_cmp);
    if let Some(&median) = noises.get(noises.len() / 2) {
        let samples: Vec<u32> = recs.iter().map(|r| r.samples).collect();
        lines.push(format!(
            "Median noise (MAD / median) {}, worst {}; {}–{} samples per record.",
            fmt_pct(100.0 * median),
            fmt_pct(100.0 * noises[noises.len() - 1]),
            samples.iter().min().unwrap_or(&0),
            samples.iter().max().unwrap_or(&0)
        ));
    }
    let mut noisy: Vec<&Record> = recs.iter().filter(|r| r.noise > 0.05).collect();
    if !noisy.is_empty() {
        noisy.sort_by(|a, b| b.noise.total_cmp(&a.noise));
        let names: Vec<String> = noisy
            .iter()
            .take(5)
            .map(|r| format!("{} ({})", r.key(), fmt_pct(100.0 * r.noise)))
            .collect();
        lines.push(format!(
            "{} noisier than 5%: {}{}.",
            count(noisy.len(), "record"),
            names.join("; "),
            if noisy.len() > 5 { "; …" } else { "" }
        ));
    }
    let with_clocks: Vec<&Record> = recs.iter().filter(|r| r.clocks.is_some()).collect();
    if !with_clocks.is_empty() {
        let c = |r: &&Record| r.clocks.clone().unwrap_or_else(|| unreachable!());
        let lo = with_clocks
            .iter()
            .map(|r| c(r).sm_mhz_min)
            .min()
            .unwrap_or(0);
        let hi = with_clocks
            .iter()
            .map(|r| c(r).sm_mhz_max)
            .max()
            .unwrap_or(0);
        let tmax = with_clocks.iter().map(|r| c(r).temp_c).max().unwrap_or(0);
        let pmax = with_clocks.iter().map(|r| c(r).power_w).fold(0.0, f64::max);
        let mut s = format!(
            "Clocks sampled for {}: SM {lo}–{hi} MHz, up to {tmax} °C and {} W.",
            count(with_clocks.len(), "record"),
            fmt_num(pmax)
        );
        let mut reasons: Vec<(String, usize)> = Vec::new();
        for r in &with_clocks {
            for t in c(r).throttle {
                match reasons.iter_mut().find(|(x, _)| *x == t) {
                    Some(x) => x.1 += 1,
                    None => reasons.push((t, 1)),
                }
            }
        }
        if reasons.is_empty() {
            s.push_str(" No throttle reasons were reported.");
        } else {
            let list: Vec<String> = reasons
                .iter()
                .map(|(t, n)| format!("{t} ({})", count(*n, "record")))
                .collect();
            let _ = write!(s, " Throttle reasons reported: {}.", list.join(", "));
        }
        lines.push(s);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::tests::fixture;

    fn charts() -> Vec<PathBuf> {
        [
            "roofline.svg",
            "square.svg",
            "decode.svg",
            "elementwise.svg",
            "fusion.svg",
        ]
        .iter()
        .map(|n| PathBuf::from("charts").join(n))
        .collect()
    }

    #[test]
    fn report_has_every_section() {
        let md = render_report(&fixture(), &charts());
        for want in [
            "# roofline-lab report: NVIDIA H200",
            "| Driver | 580.159.04 |",
            "| CUDA runtime | 13.0 |",
            "| Commit | `3f9c2e1a7b4d` |",
            "| Date | 2026-11-29T08:41:17Z |",
            "| Tool version | 0.1.0 |",
            "## Ceilings",
            "## Roofline",
            "![Roofline: NVIDIA H200](charts/roofline.svg)",
            "## Square GEMM (`square`)",
            "![Square GEMM chart](charts/square.svg)",
            "## Decode (GEMV / skinny GEMM) (`decode`)",
            "![Decode (GEMV / skinny GEMM) chart](charts/decode.svg)",
            "## Fused GEMM + bias + GELU (`fusion`)",
            "](charts/fusion.svg)",
            "](charts/elementwise.svg)",
            "## Single benchmarks (`bench`)",
            "## Correctness checks (`check`)",
            "## Correctness",
            "## Measurement quality",
        ] {
            assert!(md.contains(want), "missing {want:?}\n{md}");
        }
        assert!(!md.contains("## Other charts"));
        // sections in the fixed order
        let pos = |s: &str| md.find(s).unwrap();
        assert!(pos("(`square`)") < pos("(`decode`)"));
        assert!(pos("(`decode`)") < pos("(`fusion`)"));
        assert!(pos("(`fusion`)") < pos("(`elementwise`)"));
    }

    #[test]
    fn ceilings_table_pairs_measured_with_datasheet() {
        let md = render_report(&fixture(), &[]);
        // 4250 / 4800 = 88.5%
        assert!(
            md.contains(
                "| HBM copy 4.25 TB/s | `hbm_copy` | memory | 4250 GB/s | 4800 GB/s | 89% |"
            ),
            "{md}"
        );
        // 712 / 989.4 = 72%
        assert!(md.contains("| 712 TFLOP/s | 989.4 TFLOP/s | 72% |"));
        assert!(md.contains("| `tensor_cublas_bf16` | compute | 706.5 TFLOP/s | — | — |"));
        // FP32 60.2 / 66.9 = 90%
        assert!(md.contains("| 60.2 TFLOP/s | 66.9 TFLOP/s | 90% |"));
        // no datasheet for L2 and launch floors
        assert!(md.contains("| `l2_read` | memory | 9850 GB/s | — | — |"));
        assert!(md.contains("| `launch_floor_graph` | latency | 1.1 us | — | — |"));
        // datasheet rows are not repeated when paired
        assert!(!md.contains("| `datasheet_hbm` |"));
    }

    #[test]
    fn readings_are_computed_from_the_numbers() {
        let md = render_report(&fixture(), &charts());
        // square: v4 381.987 vs cuBLAS 653.848 = 58.4%; vs WMMA 598 = 63.9%
        assert!(md.contains(
            "At 4096³ (hot cache, launch timing) our best variant, v4, reaches 382 TFLOP/s: 58% of cuBLAS (654 TFLOP/s) and 64% of the WMMA ceiling (598 TFLOP/s); it is compute-bound at 54% of attainable."
        ), "{md}");
        assert!(md.contains("Our variants at 4096³: v1 44.5 TFLOP/s (6.8% of cuBLAS), v4 382 TFLOP/s (58% of cuBLAS)."));
        // cuBLAS 688.055 / 712 = 96.6%
        assert!(md.contains("cuBLAS at 8192³ reaches 688 TFLOP/s, 97% of the measured tensor_cublas_fp16 ceiling (712 TFLOP/s)."));
        // decode: 3894.53 / 4250 = 91.6%; hot 7127.56 / 4250 = 1.68x; / 9850 = 72%
        assert!(md.contains("Decode M=1 at N=4096 K=4096 (graph timing), ours v2: cold 3895 GB/s = 92% of HBM copy (4250 GB/s); hot 7128 GB/s, 1.68× HBM copy"), "{md}");
        assert!(md.contains("(72% of the L2 read ceiling, 9850 GB/s)"));
        assert!(md.contains(
            "Our kernel is memory-bound up to M=16 and compute-bound from M=256 (cold)."
        ));
        // fusion: 1 - 0.0381/0.0409 = 6.8%; 1 - 0.0951/0.1013 = 6.1%; 1 - 1.447/1.516 = 4.6%
        assert!(
            md.contains("6.8% at M=16, 6.1% at M=256, 4.6% at M=4096"),
            "{md}"
        );
        assert!(md.contains("Fusion is faster at every M measured, saving at least 4.6%."));
        // ours / cuBLASLt: 0.0381/0.0362 = 1.05
        assert!(md.contains("1.05× at M=16"));
        // elementwise: relu 1 GiB moved, 4096.69 / 4250 = 96%
        assert!(md.contains("relu (ours v1, graph timing): at 1.0 GiB moved (shape 268435456 elems), cold 4097 GB/s = 96% of HBM copy"), "{md}");
        assert!(md.contains("hot, above the HBM roof at 8.0 MiB moved (up to 1.30× HBM copy"));
        assert!(md.contains("2.51 µs per call = 2.3× the launch_floor_graph (1.1 us)"));
    }

    #[test]
    fn correctness_and_quality_summaries() {
        let f = fixture();
        let md = render_report(&f, &[]);
        let verified = f.records.iter().filter(|r| r.verified).count();
        assert!(md.contains(&format!(
            "{verified} of {} records verified",
            f.records.len()
        )));
        assert!(md.contains("2 skipped; 0 failed"));
        assert!(md.contains("Worst relative error: 2.2e-3"));
        assert!(md.contains("sw_power_cap (3 records)"));
        assert!(md.contains("noisier than 5%"));
    }

    #[test]
    fn failed_verification_is_listed() {
        let mut f = fixture();
        f.records[0].verified = false;
        f.records[0].max_rel_err = Some(0.25);
        let md = render_report(&f, &[]);
        assert!(md.contains("1 failed"));
        assert!(md.contains("FAILED: square/hgemm/ours/v1 1024x1024x1024 fp16 hot launch (max relative error 2.5e-1)."));
        assert!(md.contains("Worst relative error: 2.5e-1"));
    }

    #[test]
    fn unknown_charts_and_experiments_still_render() {
        let mut f = fixture();
        f.records[0].experiment = "custom".into();
        let md = render_report(&f, &[PathBuf::from("extra chart.svg")]);
        assert!(md.contains("## custom (`custom`)"));
        assert!(md.contains("## Other charts"));
        assert!(md.contains("![extra chart](extra%20chart.svg)"));
    }

    #[test]
    fn empty_results_render() {
        let md = render_report(&ResultsFile::default(), &[]);
        assert!(md.contains("# roofline-lab report: unknown device"));
        assert!(md.contains("No ceilings were recorded."));
        assert!(md.contains("The results hold no records."));
        assert!(md.contains("0 of 0 records verified"));
        let mut one = fixture();
        one.records.truncate(1);
        let md = render_report(&one, &[]);
        assert!(md.contains("0 of 1 record verified") || md.contains("1 of 1 record verified"));
    }
}
