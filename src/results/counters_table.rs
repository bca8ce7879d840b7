//! The second table of records that carry hardware counters: the work model's bytes beside
//! the DRAM bytes measured, their ratio, the L2 hit rate, and the FLOPs counted against the
//! model's. Shared by the terminal table, the Markdown export and report.md.

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};

use crate::results::export::{fmt_pct, markdown_rows};
use crate::results::schema::{format_bytes, Record};

pub const HEADER: [&str; 11] = [
    "kernel",
    "impl",
    "shape",
    "cache",
    "model bytes",
    "DRAM read",
    "DRAM write",
    "DRAM / model",
    "L2 hit",
    "FLOPs counted / model",
    "kernels",
];
/// Columns holding numbers (right-aligned).
const NUMERIC: [usize; 7] = [4, 5, 6, 7, 8, 9, 10];

/// Records with counters, each measured case once (the same launch timed in launch and
/// graph mode carries the same counters).
pub fn with_counters<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<&'a Record> {
    let mut out: Vec<&Record> = Vec::new();
    for r in records.into_iter().filter(|r| r.counters.is_present()) {
        let same = |o: &&Record| {
            o.kernel == r.kernel
                && o.impl_ == r.impl_
                && o.variant == r.variant
                && o.shape == r.shape
                && o.cache == r.cache
        };
        if !out.iter().any(same) {
            out.push(r);
        }
    }
    out
}

fn bytes_or_dash(b: Option<f64>) -> String {
    b.map_or_else(|| "-".into(), format_bytes)
}

/// "1.37e11 / 1.37e11 (1.00x)", or "-" without a count.
pub fn flops_cell(r: &Record) -> String {
    match r.counters.flops_measured {
        Some(f) if r.flops > 0.0 => format!("{f:.3e} / {:.3e} ({:.2}x)", r.flops, f / r.flops),
        Some(f) => format!("{f:.3e} / 0"),
        None => "-".into(),
    }
}

/// "1.00x", or "-".
pub fn ratio_cell(r: &Record) -> String {
    r.counters
        .dram_ratio(r.bytes)
        .map_or_else(|| "-".into(), |x| format!("{x:.2}x"))
}

pub fn cells(r: &Record) -> Vec<String> {
    let c = &r.counters;
    vec![
        r.kernel.clone(),
        r.impl_label(),
        r.shape.label(),
        r.cache.clone(),
        format_bytes(r.bytes),
        bytes_or_dash(c.dram_bytes_read),
        bytes_or_dash(c.dram_bytes_write),
        ratio_cell(r),
        c.l2_hit_rate.map_or_else(|| "-".into(), fmt_pct),
        flops_cell(r),
        c.counters_kernels
            .map_or_else(|| "-".into(), |k| k.to_string()),
    ]
}

/// The terminal table, or None when no record carries counters.
pub fn render_table(records: &[Record]) -> Option<String> {
    let recs = with_counters(records);
    if recs.is_empty() {
        return None;
    }
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(HEADER);
    for r in recs {
        t.add_row(cells(r));
    }
    for i in NUMERIC {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    Some(format!(
        "hardware counters (Nsight Compute, one launch each):\n{t}"
    ))
}

/// The Markdown table, or None when no record carries counters.
pub fn markdown<'a>(records: impl IntoIterator<Item = &'a Record>) -> Option<String> {
    let recs = with_counters(records);
    if recs.is_empty() {
        return None;
    }
    let right: Vec<bool> = (0..HEADER.len()).map(|i| NUMERIC.contains(&i)).collect();
    let rows: Vec<Vec<String>> = recs.into_iter().map(cells).collect();
    Some(markdown_rows(&HEADER, &right, &rows))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::schema::tests::fixture;
    use crate::results::Counters;

    /// A GEMV record of the fixture with counters: cold, W read once (model bytes plus a
    /// little), 4% L2 hits, FLOPs as modelled.
    pub(crate) fn with_sample_counters() -> Vec<Record> {
        let mut recs = fixture().records;
        let r = recs
            .iter_mut()
            .find(|r| r.kernel == "gemv" && r.cache == "cold")
            .expect("a cold gemv record in the fixture");
        r.counters = Counters {
            dram_bytes_measured: Some(r.bytes * 1.01),
            dram_bytes_read: Some(r.bytes),
            dram_bytes_write: Some(r.bytes * 0.01),
            l2_hit_rate: Some(4.0),
            flops_measured: Some(r.flops),
            counters_kernels: Some(1),
            counters_duration_ms: Some(0.01),
        };
        recs
    }

    #[test]
    fn only_records_with_counters_once_each() {
        assert_eq!(render_table(&fixture().records), None);
        assert_eq!(markdown(&fixture().records), None);
        let mut recs = with_sample_counters();
        let twin = recs
            .iter()
            .find(|r| r.counters.is_present())
            .unwrap()
            .clone();
        recs.push(Record {
            timing: "other".into(),
            ..twin
        });
        let t = render_table(&recs).unwrap();
        assert!(
            t.contains("DRAM / model") && t.contains("1.01x") && t.contains("4.0%"),
            "{t}"
        );
        assert!(t.contains("(1.00x)"), "{t}");
        let md = markdown(&recs).unwrap();
        assert_eq!(md.lines().count(), 3, "header, rule, one row: {md}");
    }

    #[test]
    fn missing_counts_show_a_dash() {
        let mut r = with_sample_counters()
            .into_iter()
            .find(|r| r.counters.is_present())
            .unwrap();
        r.counters.flops_measured = None;
        r.counters.dram_bytes_measured = None;
        r.counters.l2_hit_rate = None;
        let c = cells(&r);
        assert_eq!(c[7], "-");
        assert_eq!(c[8], "-");
        assert_eq!(c[9], "-");
    }
}
