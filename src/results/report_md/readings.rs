//! The roofline's reading and the generic one for experiments without their own.

use std::fmt::Write as _;

use crate::results::export::{fmt_pct, fmt_time_ms};
use crate::results::schema::{Record, ResultsFile};

use super::helpers::{count, gbs, max_by, tf, variant_name};

pub(super) fn roofline_reading(results: &ResultsFile) -> Vec<String> {
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

pub(super) fn generic_reading(recs: &[&Record]) -> Vec<String> {
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
