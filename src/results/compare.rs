//! The compare gate: old vs new results, noise-aware.
//!
//! # Rule
//!
//! For every record key (see [`RecordKey`]) present in both files,
//! `ratio = new.median_ms / old.median_ms` and `change = ratio - 1`. The
//! change counts ([`Verdict::Slower`] or [`Verdict::Faster`]) only when
//! `|change|` exceeds **both**
//!
//! 1. the threshold, `threshold_pct / 100`, and
//! 2. the noise band, `3 × max(old.noise, new.noise)`, where `noise` is the
//!    record's relative MAD (MAD / median).
//!
//! Otherwise the verdict is [`Verdict::Same`].
//!
//! Why this band: for roughly normal timings MAD ≈ 0.67 σ, so 3 MAD ≈ 2 σ
//! of the spread of single samples. That is deliberately wider than the
//! standard error of a median, because what a regression gate must not trip
//! on is run-to-run variation (clocks, temperature, neighbours), which the
//! within-run spread indicates but underestimates. A noisy measurement thus
//! has to move a lot before it is called a change; a quiet one is judged by
//! the threshold alone. Using the larger of the two noises means a noisy new
//! run cannot produce a confident verdict against a quiet old one.
//!
//! Records with a non-positive or non-finite median, or a non-finite noise,
//! cannot be judged: their verdict is `Same` and their ratio NaN (shown as
//! "n/a"). When a key occurs more than once in a file, the last record wins.

use std::collections::{HashMap, HashSet};
use std::fmt;

use comfy_table::{presets, CellAlignment, Table};

use crate::results::export::{fmt_pct, fmt_time_ms, markdown_rows};
use crate::results::schema::{Record, RecordKey, ResultsFile};

/// Noise band width in units of the larger relative MAD.
pub const NOISE_BAND_MADS: f64 = 3.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Faster,
    Slower,
    Same,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "SLOWER",
            Verdict::Same => "same",
        })
    }
}

/// One key present in both files.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    pub key: RecordKey,
    pub old_median_ms: f64,
    pub new_median_ms: f64,
    /// new / old; NaN when not comparable.
    pub ratio: f64,
    /// 100 × (ratio − 1).
    pub change_pct: f64,
    /// 100 × 3 × max(old.noise, new.noise).
    pub noise_band_pct: f64,
    pub verdict: Verdict,
    pub old_verified: bool,
    pub new_verified: bool,
}

/// Result of [`compare`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompareReport {
    pub threshold_pct: f64,
    pub old_device: String,
    pub new_device: String,
    /// Keys present in both, in the new file's order.
    pub rows: Vec<CompareRow>,
    /// Keys only in the new file.
    pub added: Vec<RecordKey>,
    /// Keys only in the old file.
    pub removed: Vec<RecordKey>,
}

/// Unique keys in file order, each with the last record carrying it.
fn dedup(records: &[Record]) -> Vec<(RecordKey, &Record)> {
    let mut last: HashMap<RecordKey, &Record> = HashMap::new();
    let mut order = Vec::new();
    for r in records {
        let k = r.key();
        if last.insert(k.clone(), r).is_none() {
            order.push(k);
        }
    }
    order
        .into_iter()
        .map(|k| {
            let r = last[&k];
            (k, r)
        })
        .collect()
}

/// Judges one pair of measurements of the same key (see the module docs).
pub fn judge(old: &Record, new: &Record, threshold_pct: f64) -> (f64, f64, Verdict) {
    let valid = |r: &Record| r.median_ms.is_finite() && r.median_ms > 0.0 && r.noise.is_finite();
    let band = NOISE_BAND_MADS * old.noise.abs().max(new.noise.abs());
    if !valid(old) || !valid(new) {
        return (f64::NAN, band, Verdict::Same);
    }
    let ratio = new.median_ms / old.median_ms;
    let change = ratio - 1.0;
    let limit = (threshold_pct / 100.0).max(band);
    let verdict = if change.abs() <= limit {
        Verdict::Same
    } else if change > 0.0 {
        Verdict::Slower
    } else {
        Verdict::Faster
    };
    (ratio, band, verdict)
}

/// Compares two result files; see the module docs for the rule.
pub fn compare(old: &ResultsFile, new: &ResultsFile, threshold_pct: f64) -> CompareReport {
    let old_recs = dedup(&old.records);
    let new_recs = dedup(&new.records);
    let old_map: HashMap<&RecordKey, &Record> = old_recs.iter().map(|(k, r)| (k, *r)).collect();
    let new_keys: HashSet<&RecordKey> = new_recs.iter().map(|(k, _)| k).collect();

    let mut rows = Vec::new();
    let mut added = Vec::new();
    for (key, n) in &new_recs {
        match old_map.get(key) {
            Some(o) => {
                let (ratio, band, verdict) = judge(o, n, threshold_pct);
                rows.push(CompareRow {
                    key: key.clone(),
                    old_median_ms: o.median_ms,
                    new_median_ms: n.median_ms,
                    ratio,
                    change_pct: 100.0 * (ratio - 1.0),
                    noise_band_pct: 100.0 * band,
                    verdict,
                    old_verified: o.verified,
                    new_verified: n.verified,
                });
            }
            None => added.push(key.clone()),
        }
    }
    let removed = old_recs
        .iter()
        .filter(|(k, _)| !new_keys.contains(k))
        .map(|(k, _)| k.clone())
        .collect();
    CompareReport {
        threshold_pct,
        old_device: old.run.device.clone(),
        new_device: new.run.device.clone(),
        rows,
        added,
        removed,
    }
}

impl CompareReport {
    /// True when any common record got slower; the CLI exits 1 then.
    pub fn any_slower(&self) -> bool {
        self.rows.iter().any(|r| r.verdict == Verdict::Slower)
    }

    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }

    /// Rows verified in the old run but not in the new one.
    pub fn lost_verification(&self) -> impl Iterator<Item = &CompareRow> {
        self.rows
            .iter()
            .filter(|r| r.old_verified && !r.new_verified)
    }

    /// True when the two runs name different devices.
    pub fn device_mismatch(&self) -> bool {
        self.old_device != self.new_device
    }

    /// One line: "12 compared: 1 faster, 2 slower, 9 same; 1 added, 0 removed (threshold 5%)".
    pub fn summary(&self) -> String {
        format!(
            "{} compared: {} faster, {} slower, {} same; {} added, {} removed (threshold {}%, noise band {}×MAD)",
            self.rows.len(),
            self.count(Verdict::Faster),
            self.count(Verdict::Slower),
            self.count(Verdict::Same),
            self.added.len(),
            self.removed.len(),
            self.threshold_pct,
            NOISE_BAND_MADS,
        )
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.device_mismatch() {
            notes.push(format!(
                "warning: devices differ: old {:?}, new {:?}",
                self.old_device, self.new_device
            ));
        }
        for r in self.lost_verification() {
            notes.push(format!("warning: {} no longer verified", r.key));
        }
        for k in &self.added {
            notes.push(format!("added: {k}"));
        }
        for k in &self.removed {
            notes.push(format!("removed: {k}"));
        }
        notes
    }

    fn cells(row: &CompareRow) -> Vec<String> {
        let k = &row.key;
        let what = if k.variant.is_empty() {
            format!("{}/{}/{}", k.experiment, k.kernel, k.impl_)
        } else {
            format!("{}/{}/{} {}", k.experiment, k.kernel, k.impl_, k.variant)
        };
        let (ratio, change) = if row.ratio.is_nan() {
            ("n/a".to_string(), "n/a".to_string())
        } else {
            (
                format!("{:.3}x", row.ratio),
                format!("{:+.1}%", row.change_pct),
            )
        };
        vec![
            what,
            k.shape.label(),
            format!("{} {}", k.cache, k.timing),
            fmt_time_ms(row.old_median_ms),
            fmt_time_ms(row.new_median_ms),
            ratio,
            change,
            format!("±{}", fmt_pct(row.noise_band_pct)),
            row.verdict.to_string(),
        ]
    }

    const HEADER: [&'static str; 9] = [
        "record",
        "shape",
        "cache/timing",
        "old",
        "new",
        "ratio",
        "change",
        "noise band",
        "verdict",
    ];

    /// Terminal table, then the summary and notes (added/removed keys,
    /// device mismatch, lost verification).
    pub fn render_table(&self) -> String {
        let mut t = Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED);
        t.set_header(Self::HEADER.to_vec());
        for row in &self.rows {
            t.add_row(Self::cells(row));
        }
        for idx in 3..=7 {
            if let Some(c) = t.column_mut(idx) {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
        let mut out = t.to_string();
        out.push('\n');
        out.push_str(&self.summary());
        out.push('\n');
        for n in self.notes() {
            out.push_str(&n);
            out.push('\n');
        }
        out
    }

    /// Markdown version of [`CompareReport::render_table`].
    pub fn render_markdown(&self) -> String {
        let rows: Vec<Vec<String>> = self.rows.iter().map(Self::cells).collect();
        let right: Vec<bool> = (0..Self::HEADER.len())
            .map(|i| (3..=7).contains(&i))
            .collect();
        let mut out = markdown_rows(&Self::HEADER, &right, &rows);
        out.push('\n');
        out.push_str(&self.summary());
        out.push('\n');
        for n in self.notes() {
            out.push_str(&format!("\n- {n}"));
        }
        if !self.notes().is_empty() {
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for CompareReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render_table())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::tests::fixture;

    fn with(f: &ResultsFile, edit: impl Fn(&mut Record)) -> ResultsFile {
        let mut g = f.clone();
        g.records.iter_mut().for_each(edit);
        g
    }

    #[test]
    fn identical_files_are_all_same() {
        let f = fixture();
        let rep = compare(&f, &f, 5.0);
        assert_eq!(rep.rows.len(), f.records.len());
        assert!(rep.rows.iter().all(|r| r.verdict == Verdict::Same));
        assert!(rep.rows.iter().all(|r| (r.ratio - 1.0).abs() < 1e-12));
        assert!(!rep.any_slower());
        assert!(rep.added.is_empty() && rep.removed.is_empty());
    }

    #[test]
    fn twenty_pct_slower_low_noise_is_slower() {
        let f = with(&fixture(), |r| r.noise = 0.01);
        let g = with(&f, |r| r.median_ms *= 1.2);
        let rep = compare(&f, &g, 5.0);
        assert!(rep.rows.iter().all(|r| r.verdict == Verdict::Slower));
        assert!(rep.any_slower());
        assert!((rep.rows[0].change_pct - 20.0).abs() < 1e-9);
        // and the reverse direction is faster
        let back = compare(&g, &f, 5.0);
        assert!(back.rows.iter().all(|r| r.verdict == Verdict::Faster));
        assert!(!back.any_slower());
    }

    #[test]
    fn twenty_pct_with_thirty_pct_noise_is_same() {
        let f = with(&fixture(), |r| r.noise = 0.30);
        let g = with(&f, |r| r.median_ms *= 1.2);
        let rep = compare(&f, &g, 5.0);
        assert!(rep.rows.iter().all(|r| r.verdict == Verdict::Same));
        assert!(!rep.any_slower());
        // noise of only one side is enough to widen the band
        let quiet = with(&fixture(), |r| r.noise = 0.001);
        let noisy_new = with(&quiet, |r| {
            r.median_ms *= 1.2;
            r.noise = 0.30
        });
        assert!(!compare(&quiet, &noisy_new, 5.0).any_slower());
    }

    #[test]
    fn threshold_is_respected() {
        let f = with(&fixture(), |r| r.noise = 0.001);
        let g = with(&f, |r| r.median_ms *= 1.04);
        assert!(!compare(&f, &g, 5.0).any_slower());
        assert!(compare(&f, &g, 3.0).any_slower());
        // a 25% change under a 30% threshold is not a change
        let h = with(&f, |r| r.median_ms *= 1.25);
        let rep = compare(&f, &h, 30.0);
        assert_eq!(rep.count(Verdict::Same), rep.rows.len());
    }

    #[test]
    fn noise_band_boundary() {
        let f = with(&fixture(), |r| r.noise = 0.02); // band 6%
        let g = with(&f, |r| r.median_ms *= 1.05);
        assert!(!compare(&f, &g, 1.0).any_slower());
        let g = with(&f, |r| r.median_ms *= 1.07);
        assert!(compare(&f, &g, 1.0).any_slower());
    }

    #[test]
    fn added_removed_and_mixed() {
        let f = fixture();
        let mut g = f.clone();
        let gone = g.records.remove(0).key();
        let mut extra = g.records[0].clone();
        extra.shape = crate::results::Shape::Gemm {
            m: 16384,
            n: 16384,
            k: 16384,
        };
        g.records.push(extra.clone());
        g.records[1].median_ms *= 2.0;
        g.records[1].noise = 0.001;
        let rep = compare(&f, &g, 5.0);
        assert_eq!(rep.removed, vec![gone]);
        assert_eq!(rep.added, vec![extra.key()]);
        assert_eq!(rep.count(Verdict::Slower), 1);
        let table = rep.render_table();
        assert!(table.contains("SLOWER"));
        assert!(table.contains("added: square/hgemm/ours/v4 16384x16384x16384"));
        assert!(table.contains("removed: "));
        let md = rep.render_markdown();
        assert!(md.starts_with("| record |"));
        assert!(md.contains("1 slower"));
    }

    #[test]
    fn invalid_medians_are_not_judged() {
        let f = fixture();
        let g = with(&f, |r| r.median_ms = 0.0);
        let rep = compare(&f, &g, 5.0);
        assert!(rep
            .rows
            .iter()
            .all(|r| r.verdict == Verdict::Same && r.ratio.is_nan()));
        assert!(rep.render_table().contains("n/a"));
        let h = with(&f, |r| r.noise = f64::NAN);
        assert!(!compare(&f, &with(&h, |r| r.median_ms *= 3.0), 5.0).any_slower());
    }

    #[test]
    fn duplicate_keys_last_wins_and_device_mismatch_noted() {
        let f = fixture();
        let mut g = f.clone();
        let mut dup = g.records[0].clone();
        dup.median_ms *= 2.0;
        g.records.push(dup);
        g.run.device = "NVIDIA H100 80GB HBM3".into();
        let rep = compare(&f, &g, 5.0);
        assert_eq!(rep.rows.len(), f.records.len());
        assert_eq!(rep.rows[0].verdict, Verdict::Slower);
        assert!(rep.device_mismatch());
        assert!(rep.to_string().contains("devices differ"));
    }

    #[test]
    fn lost_verification_is_reported() {
        let f = fixture();
        let mut g = f.clone();
        g.records[0].verified = false;
        let rep = compare(&f, &g, 5.0);
        assert_eq!(rep.lost_verification().count(), 1);
        assert!(rep.render_table().contains("no longer verified"));
    }
}
