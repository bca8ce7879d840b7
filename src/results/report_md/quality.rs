//! The report's closing sections: correctness and measurement quality.

use std::fmt::Write as _;

use crate::results::export::{fmt_err, fmt_num, fmt_pct};
use crate::results::schema::{Record, ResultsFile};

use super::helpers::count;

pub(super) fn correctness(results: &ResultsFile) -> Vec<String> {
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

pub(super) fn quality(results: &ResultsFile) -> Vec<String> {
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
        // NVML reads 0 for both where it cannot read them (the H200 machine in S37): say so
        // instead of printing 0 °C and 0 W as if measured.
        let health = if tmax == 0 && pmax == 0.0 {
            "temperature and power not readable through NVML here".to_string()
        } else {
            format!("up to {tmax} °C and {} W", fmt_num(pmax))
        };
        let mut s = format!(
            "Clocks sampled for {}: SM {lo}–{hi} MHz, {health}.",
            count(with_clocks.len(), "record"),
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
