//! Exporters: terminal table, JSON, CSV (round-trips) and Markdown.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, bail, Context};
use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use serde::{Deserialize, Serialize};

use crate::results::counters_table;
use crate::results::schema::{Clocks, Counters, Record, ResultsFile, Shape};

/// Output format of [`render`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Terminal table (comfy-table).
    Table,
    /// The [`ResultsFile`] as pretty JSON.
    Json,
    /// One row per record, shape and clocks flattened (see [`CsvRow`]).
    Csv,
    /// A GitHub-flavoured Markdown table.
    Markdown,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Table, Format::Json, Format::Csv, Format::Markdown];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }

    /// File extension for the format, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "table" | "text" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "markdown" | "md" => Ok(Format::Markdown),
            other => bail!("unknown format {other:?} (expected table, json, csv or markdown)"),
        }
    }
}

/// Renders a results file in the given format.
pub fn render(results: &ResultsFile, format: Format) -> anyhow::Result<String> {
    match format {
        Format::Table => Ok(join_counters(
            render_table(&results.records),
            counters_table::render_table(&results.records),
        )),
        Format::Json => results.to_json(),
        Format::Csv => render_csv(&results.records),
        Format::Markdown => Ok(join_counters(
            render_markdown(&results.records),
            counters_table::markdown(&results.records),
        )),
    }
}

/// The main table, then the counters table when any record carries counters.
fn join_counters(main: String, counters: Option<String>) -> String {
    match counters {
        Some(c) => format!("{main}\n\n{c}"),
        None => main,
    }
}

// ---------------------------------------------------------------- formatting

/// A time given in milliseconds, in µs below 1 ms: "8.62 µs", "360 µs", "1.447 ms".
pub fn fmt_time_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return format!("{ms} ms");
    }
    let us = ms * 1e3;
    if us.abs() < 10.0 {
        format!("{us:.2} µs")
    } else if us.abs() < 100.0 {
        format!("{us:.1} µs")
    } else if us.abs() < 1000.0 {
        format!("{us:.0} µs")
    } else if ms.abs() < 10.0 {
        format!("{ms:.3} ms")
    } else if ms.abs() < 100.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

/// About three significant digits, no exponent for ordinary magnitudes.
pub fn fmt_num(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        "0".to_string()
    } else if !x.is_finite() {
        format!("{x}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a >= 0.01 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    }
}

/// A percentage with one decimal below 10, none above: "1.2%", "91%".
pub fn fmt_pct(pct: f64) -> String {
    if pct.abs() < 10.0 {
        format!("{pct:.1}%")
    } else {
        format!("{pct:.0}%")
    }
}

/// A relative error in short scientific form: "4.9e-4", or "0".
pub fn fmt_err(e: f64) -> String {
    if e == 0.0 {
        "0".to_string()
    } else {
        let s = format!("{e:.1e}");
        s.replace("e-0", "e-")
    }
}

/// "ok 4.9e-4", "FAIL 2.0e-1", or "skip".
pub fn verified_cell(r: &Record) -> String {
    match (r.verified, r.max_rel_err) {
        (true, Some(e)) => format!("ok {}", fmt_err(e)),
        (true, None) => "ok".to_string(),
        (false, Some(e)) => format!("FAIL {}", fmt_err(e)),
        (false, None) => "skip".to_string(),
    }
}

/// Indices of [`TABLE_HEADER`] columns that hold numbers (right-aligned).
const NUMERIC_COLUMNS: [usize; 6] = [6, 7, 8, 9, 10, 12];

const TABLE_HEADER: [&str; 14] = [
    "kernel", "impl", "variant", "shape", "cache", "timing", "median", "noise", "TFLOP/s", "GB/s",
    "AI", "bound", "% att.", "verified",
];

/// The timing mode, marked when the figure is not an unthrottled one: "capped" when too few
/// clean samples were found (the median includes throttled samples), "sustained" when asked.
fn timing_cell(r: &Record) -> String {
    match r.status.as_deref() {
        Some("throttled") => format!("{} CAPPED", r.timing),
        Some("sustained") => format!("{} sustained", r.timing),
        _ => r.timing.clone(),
    }
}

/// The shape cell: its label, with the dtype after it where that is not fp16 (the tables have
/// no dtype column; the square sweep holds fp16 and bf16 records of the same shapes).
fn shape_cell(r: &Record) -> String {
    if r.dtype == "fp16" || r.dtype.is_empty() {
        r.shape.label()
    } else {
        format!("{} {}", r.shape.label(), r.dtype)
    }
}

fn record_cells(r: &Record) -> Vec<String> {
    let has_flops = r.flops > 0.0;
    vec![
        r.kernel.clone(),
        r.impl_.clone(),
        if r.variant.is_empty() {
            "-".into()
        } else {
            r.variant.clone()
        },
        shape_cell(r),
        r.cache.clone(),
        timing_cell(r),
        fmt_time_ms(r.median_ms),
        fmt_pct(r.noise * 100.0),
        if has_flops {
            fmt_num(r.tflops)
        } else {
            "-".into()
        },
        fmt_num(r.gbs),
        if has_flops { fmt_num(r.ai) } else { "-".into() },
        r.bound.clone(),
        fmt_pct(r.pct_attainable),
        verified_cell(r),
    ]
}

fn multi_experiment(records: &[Record]) -> bool {
    records
        .first()
        .is_some_and(|f| records.iter().any(|r| r.experiment != f.experiment))
}

/// Compact terminal table, one row per record. An "exp" column is added when
/// the records span more than one experiment.
pub fn render_table(records: &[Record]) -> String {
    let with_exp = multi_experiment(records);
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let mut header: Vec<&str> = Vec::new();
    if with_exp {
        header.push("exp");
    }
    header.extend(TABLE_HEADER);
    table.set_header(header);
    for r in records {
        let mut cells = Vec::new();
        if with_exp {
            cells.push(r.experiment.clone());
        }
        cells.extend(record_cells(r));
        table.add_row(cells);
    }
    let offset = usize::from(with_exp);
    for idx in NUMERIC_COLUMNS {
        if let Some(col) = table.column_mut(idx + offset) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.to_string()
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Renders rows as a GitHub-flavoured Markdown table (header, alignment row).
pub fn markdown_rows(header: &[&str], right_aligned: &[bool], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    out.push('|');
    for h in header {
        out.push_str(&format!(" {} |", md_escape(h)));
    }
    out.push_str("\n|");
    for i in 0..header.len() {
        let right = right_aligned.get(i).copied().unwrap_or(false);
        out.push_str(if right { " ---: |" } else { " --- |" });
    }
    out.push('\n');
    for row in rows {
        out.push('|');
        for cell in row {
            out.push_str(&format!(" {} |", md_escape(cell)));
        }
        out.push('\n');
    }
    out
}

/// Markdown table of records with the same columns as the terminal table.
pub fn render_markdown(records: &[Record]) -> String {
    let refs: Vec<&Record> = records.iter().collect();
    markdown_table(&refs, multi_experiment(records))
}

/// Markdown table of the given records; `with_experiment` adds an "exp" column.
pub fn markdown_table(records: &[&Record], with_experiment: bool) -> String {
    let mut header: Vec<&str> = Vec::new();
    let mut right = Vec::new();
    if with_experiment {
        header.push("exp");
        right.push(false);
    }
    header.extend(TABLE_HEADER);
    right.extend((0..TABLE_HEADER.len()).map(|i| NUMERIC_COLUMNS.contains(&i)));
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            let mut cells = Vec::new();
            if with_experiment {
                cells.push(r.experiment.clone());
            }
            cells.extend(record_cells(r));
            cells
        })
        .collect();
    markdown_rows(&header, &right, &rows)
}

// ----------------------------------------------------------------------- CSV

/// One CSV row: a [`Record`] with its shape and clocks flattened.
///
/// Shape columns `m,n,k,rows,hidden,elems,shape_bytes` are empty when the
/// shape has no such dimension (`shape_bytes` is the `Shape::Bytes` size; the
/// `bytes` column is the work model's byte count, as in JSON). Clock columns
/// are all empty when the record has no clocks; `throttle` joins reasons with
/// `;`. `max_rel_err` is empty when verification was skipped.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CsvRow {
    pub experiment: String,
    pub kernel: String,
    #[serde(rename = "impl")]
    pub impl_: String,
    pub variant: String,
    pub m: Option<u64>,
    pub n: Option<u64>,
    pub k: Option<u64>,
    pub rows: Option<u64>,
    pub hidden: Option<u64>,
    pub elems: Option<u64>,
    pub shape_bytes: Option<u64>,
    pub dtype: String,
    pub cache: String,
    pub timing: String,
    pub median_ms: f64,
    pub min_ms: f64,
    pub p10_ms: f64,
    pub p90_ms: f64,
    pub noise: f64,
    pub samples: u32,
    pub flops: f64,
    pub bytes: f64,
    pub tflops: f64,
    pub gbs: f64,
    pub ai: f64,
    pub bound: String,
    pub pct_attainable: f64,
    pub verified: bool,
    pub max_rel_err: Option<f64>,
    pub sm_mhz_min: Option<u32>,
    pub sm_mhz_max: Option<u32>,
    pub mem_mhz: Option<u32>,
    pub temp_c: Option<u32>,
    pub power_w: Option<f64>,
    pub throttle: String,
    pub status: Option<String>,
    pub clean_samples: Option<u32>,
    pub throttled_fraction: Option<f64>,
    // Hardware counters (empty without --counters; absent in files written before them).
    #[serde(default)]
    pub dram_bytes_measured: Option<f64>,
    #[serde(default)]
    pub dram_bytes_read: Option<f64>,
    #[serde(default)]
    pub dram_bytes_write: Option<f64>,
    #[serde(default)]
    pub l2_hit_rate: Option<f64>,
    #[serde(default)]
    pub flops_measured: Option<f64>,
    #[serde(default)]
    pub counters_kernels: Option<u32>,
    #[serde(default)]
    pub counters_duration_ms: Option<f64>,
}

impl From<&Record> for CsvRow {
    fn from(r: &Record) -> Self {
        let (mut m, mut n, mut k, mut rows, mut hidden, mut elems, mut shape_bytes) =
            (None, None, None, None, None, None, None);
        match r.shape {
            Shape::Gemm { m: a, n: b, k: c } => {
                m = Some(a);
                n = Some(b);
                k = Some(c);
            }
            Shape::Rows { rows: a, hidden: b } => {
                rows = Some(a);
                hidden = Some(b);
            }
            Shape::Elems { elems: a } => elems = Some(a),
            Shape::Bytes { bytes: a } => shape_bytes = Some(a),
        }
        let c = r.clocks.as_ref();
        CsvRow {
            experiment: r.experiment.clone(),
            kernel: r.kernel.clone(),
            impl_: r.impl_.clone(),
            variant: r.variant.clone(),
            m,
            n,
            k,
            rows,
            hidden,
            elems,
            shape_bytes,
            dtype: r.dtype.clone(),
            cache: r.cache.clone(),
            timing: r.timing.clone(),
            median_ms: r.median_ms,
            min_ms: r.min_ms,
            p10_ms: r.p10_ms,
            p90_ms: r.p90_ms,
            noise: r.noise,
            samples: r.samples,
            flops: r.flops,
            bytes: r.bytes,
            tflops: r.tflops,
            gbs: r.gbs,
            ai: r.ai,
            bound: r.bound.clone(),
            pct_attainable: r.pct_attainable,
            verified: r.verified,
            max_rel_err: r.max_rel_err,
            sm_mhz_min: c.map(|c| c.sm_mhz_min),
            sm_mhz_max: c.map(|c| c.sm_mhz_max),
            mem_mhz: c.map(|c| c.mem_mhz),
            temp_c: c.map(|c| c.temp_c),
            power_w: c.map(|c| c.power_w),
            throttle: c.map(|c| c.throttle.join(";")).unwrap_or_default(),
            status: r.status.clone(),
            clean_samples: r.clean_samples,
            throttled_fraction: r.throttled_fraction,
            dram_bytes_measured: r.counters.dram_bytes_measured,
            dram_bytes_read: r.counters.dram_bytes_read,
            dram_bytes_write: r.counters.dram_bytes_write,
            l2_hit_rate: r.counters.l2_hit_rate,
            flops_measured: r.counters.flops_measured,
            counters_kernels: r.counters.counters_kernels,
            counters_duration_ms: r.counters.counters_duration_ms,
        }
    }
}

impl TryFrom<CsvRow> for Record {
    type Error = anyhow::Error;
    fn try_from(row: CsvRow) -> anyhow::Result<Record> {
        let shape = match (
            (row.m, row.n, row.k),
            (row.rows, row.hidden),
            row.elems,
            row.shape_bytes,
        ) {
            ((Some(m), Some(n), Some(k)), (None, None), None, None) => Shape::Gemm { m, n, k },
            ((None, None, None), (Some(rows), Some(hidden)), None, None) => {
                Shape::Rows { rows, hidden }
            }
            ((None, None, None), (None, None), Some(elems), None) => Shape::Elems { elems },
            ((None, None, None), (None, None), None, Some(bytes)) => Shape::Bytes { bytes },
            _ => bail!("row has no consistent shape (expected exactly one of m,n,k | rows,hidden | elems | shape_bytes)"),
        };
        let clocks = match (
            row.sm_mhz_min,
            row.sm_mhz_max,
            row.mem_mhz,
            row.temp_c,
            row.power_w,
        ) {
            (Some(sm_mhz_min), Some(sm_mhz_max), Some(mem_mhz), Some(temp_c), Some(power_w)) => {
                Some(Clocks {
                    sm_mhz_min,
                    sm_mhz_max,
                    mem_mhz,
                    temp_c,
                    power_w,
                    throttle: if row.throttle.is_empty() {
                        Vec::new()
                    } else {
                        row.throttle.split(';').map(str::to_string).collect()
                    },
                })
            }
            (None, None, None, None, None) if row.throttle.is_empty() => None,
            _ => bail!("row has partial clock columns"),
        };
        Ok(Record {
            experiment: row.experiment,
            kernel: row.kernel,
            impl_: row.impl_,
            variant: row.variant,
            shape,
            dtype: row.dtype,
            cache: row.cache,
            timing: row.timing,
            median_ms: row.median_ms,
            min_ms: row.min_ms,
            p10_ms: row.p10_ms,
            p90_ms: row.p90_ms,
            noise: row.noise,
            samples: row.samples,
            flops: row.flops,
            bytes: row.bytes,
            tflops: row.tflops,
            gbs: row.gbs,
            ai: row.ai,
            bound: row.bound,
            pct_attainable: row.pct_attainable,
            verified: row.verified,
            max_rel_err: row.max_rel_err,
            clocks,
            status: row.status,
            clean_samples: row.clean_samples,
            throttled_fraction: row.throttled_fraction,
            counters: Counters {
                dram_bytes_measured: row.dram_bytes_measured,
                dram_bytes_read: row.dram_bytes_read,
                dram_bytes_write: row.dram_bytes_write,
                l2_hit_rate: row.l2_hit_rate,
                flops_measured: row.flops_measured,
                counters_kernels: row.counters_kernels,
                counters_duration_ms: row.counters_duration_ms,
            },
        })
    }
}

/// CSV with a header row, one row per record (see [`CsvRow`]).
pub fn render_csv(records: &[Record]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    if records.is_empty() {
        // serde only writes a header together with the first row.
        w.write_record(csv_header())?;
    }
    for r in records {
        w.serialize(CsvRow::from(r))?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow!("flushing CSV: {e}"))?;
    Ok(String::from_utf8(bytes)?)
}

/// The CSV header columns, in order.
pub fn csv_header() -> Vec<&'static str> {
    vec![
        "experiment",
        "kernel",
        "impl",
        "variant",
        "m",
        "n",
        "k",
        "rows",
        "hidden",
        "elems",
        "shape_bytes",
        "dtype",
        "cache",
        "timing",
        "median_ms",
        "min_ms",
        "p10_ms",
        "p90_ms",
        "noise",
        "samples",
        "flops",
        "bytes",
        "tflops",
        "gbs",
        "ai",
        "bound",
        "pct_attainable",
        "verified",
        "max_rel_err",
        "sm_mhz_min",
        "sm_mhz_max",
        "mem_mhz",
        "temp_c",
        "power_w",
        "throttle",
        "status",
        "clean_samples",
        "throttled_fraction",
        "dram_bytes_measured",
        "dram_bytes_read",
        "dram_bytes_write",
        "l2_hit_rate",
        "flops_measured",
        "counters_kernels",
        "counters_duration_ms",
    ]
}

/// Rebuilds records from CSV written by [`render_csv`].
pub fn parse_csv(text: &str) -> anyhow::Result<Vec<Record>> {
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let mut out = Vec::new();
    for (i, row) in rdr.deserialize::<CsvRow>().enumerate() {
        let row = row.with_context(|| format!("CSV record {}", i + 1))?;
        out.push(Record::try_from(row).with_context(|| format!("CSV record {}", i + 1))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::tests::fixture;
    use proptest::prelude::*;

    #[test]
    fn format_parse_and_display() {
        for f in Format::ALL {
            assert_eq!(f.as_str().parse::<Format>().unwrap(), f);
        }
        assert_eq!("md".parse::<Format>().unwrap(), Format::Markdown);
        assert!("xml".parse::<Format>().is_err());
    }

    #[test]
    fn number_formatting() {
        assert_eq!(fmt_time_ms(0.00862), "8.62 µs");
        assert_eq!(fmt_time_ms(0.0381), "38.1 µs");
        assert_eq!(fmt_time_ms(0.3598), "360 µs");
        assert_eq!(fmt_time_ms(1.447), "1.447 ms");
        assert_eq!(fmt_time_ms(24.9), "24.90 ms");
        assert_eq!(fmt_num(653.848), "654");
        assert_eq!(fmt_num(44.4786), "44.5");
        assert_eq!(fmt_num(3.89263), "3.89");
        assert_eq!(fmt_num(0.25), "0.250");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_pct(1.2), "1.2%");
        assert_eq!(fmt_pct(91.64), "92%");
        assert_eq!(fmt_err(4.9e-4), "4.9e-4");
        assert_eq!(fmt_err(0.0), "0");
    }

    #[test]
    fn table_has_columns_and_rows() {
        let f = fixture();
        let t = render(&f, Format::Table).unwrap();
        for h in [
            "kernel", "median", "TFLOP/s", "GB/s", "% att.", "verified", "exp",
        ] {
            assert!(t.contains(h), "missing {h}");
        }
        assert!(t.contains("4096x4096x4096"));
        assert!(t.contains("360 µs"));
        assert!(t.contains("skip"));
        // one line per record plus borders/header
        assert!(t.lines().count() >= f.records.len() + 3);
        // single experiment: no exp column
        let sq: Vec<Record> = f.records_of("square").cloned().collect();
        assert!(!render_table(&sq).contains("exp"));
    }

    #[test]
    fn a_throttled_figure_is_marked_in_the_table() {
        let mut r = fixture().records[0].clone();
        r.status = Some("clean".into());
        assert!(!render_table(std::slice::from_ref(&r)).contains("CAPPED"));
        r.status = Some("throttled".into());
        assert!(render_table(std::slice::from_ref(&r)).contains(&format!("{} CAPPED", r.timing)));
        r.status = Some("sustained".into());
        assert!(render_table(&[r]).contains("sustained"));
    }

    #[test]
    fn markdown_table_shape() {
        let f = fixture();
        let md = render(&f, Format::Markdown).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), f.records.len() + 2);
        let cols = lines[0].matches('|').count();
        assert!(lines.iter().all(|l| l.matches('|').count() == cols));
        assert!(lines[1].contains("---:"));
    }

    #[test]
    fn markdown_escapes_pipes() {
        let rows = vec![vec!["a|b".to_string()]];
        assert_eq!(
            markdown_rows(&["h"], &[false], &rows),
            "| h |\n| --- |\n| a\\|b |\n"
        );
    }

    #[test]
    fn csv_round_trips_fixture() {
        let f = fixture();
        let text = render(&f, Format::Csv).unwrap();
        let header = text.lines().next().unwrap();
        assert_eq!(header, csv_header().join(","));
        assert_eq!(text.lines().count(), f.records.len() + 1);
        assert_eq!(parse_csv(&text).unwrap(), f.records);
    }

    #[test]
    fn csv_empty_has_header_only() {
        let text = render_csv(&[]).unwrap();
        assert_eq!(text.trim_end(), csv_header().join(","));
        assert!(parse_csv(&text).unwrap().is_empty());
    }

    #[test]
    fn csv_rejects_inconsistent_shape() {
        let f = fixture();
        let text = render_csv(&f.records[..1]).unwrap();
        // add an elems value (column 9) to a GEMM row
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
        cells[9] = "7".into();
        lines[1] = cells.join(",");
        assert!(parse_csv(&lines.join("\n")).is_err());
    }

    #[test]
    fn json_render_is_the_file() {
        let f = fixture();
        let j = render(&f, Format::Json).unwrap();
        assert_eq!(ResultsFile::from_json(&j).unwrap(), f);
    }

    fn arb_shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            (1u64..1 << 20, 1u64..1 << 20, 1u64..1 << 20).prop_map(|(m, n, k)| Shape::Gemm {
                m,
                n,
                k
            }),
            (1u64..1 << 20, 1u64..1 << 16).prop_map(|(rows, hidden)| Shape::Rows { rows, hidden }),
            (1u64..u64::MAX).prop_map(|elems| Shape::Elems { elems }),
            (1u64..u64::MAX).prop_map(|bytes| Shape::Bytes { bytes }),
        ]
    }

    fn arb_clocks() -> impl Strategy<Value = Option<Clocks>> {
        proptest::option::of(
            (
                0u32..3000,
                0u32..3000,
                0u32..5000,
                0u32..120,
                0.0f64..1000.0,
                proptest::collection::vec("[a-z_]{1,12}", 0..3),
            )
                .prop_map(|(a, b, c, d, e, t)| Clocks {
                    sm_mhz_min: a,
                    sm_mhz_max: b,
                    mem_mhz: c,
                    temp_c: d,
                    power_w: e,
                    throttle: t,
                }),
        )
    }

    fn arb_counters() -> impl Strategy<Value = Counters> {
        let x = || proptest::option::of(0.0f64..1e12);
        (x(), x(), x(), x(), x(), proptest::option::of(0u32..64), x()).prop_map(
            |(m, r, w, h, f, k, d)| Counters {
                dram_bytes_measured: m,
                dram_bytes_read: r,
                dram_bytes_write: w,
                l2_hit_rate: h,
                flops_measured: f,
                counters_kernels: k,
                counters_duration_ms: d,
            },
        )
    }

    fn arb_record() -> impl Strategy<Value = Record> {
        (
            (
                "[a-z]{1,8}",
                "[a-z_]{1,10}",
                "[a-z_]{1,10}",
                "(v[0-9])?",
                arb_shape(),
            ),
            (
                prop_oneof!["cold", "hot"],
                prop_oneof!["kernel", "launch", "graph"],
            ),
            proptest::collection::vec(-1e12f64..1e12, 11),
            any::<u32>(),
            (
                any::<bool>(),
                proptest::option::of(0.0f64..1.0),
                arb_clocks(),
            ),
            "[a-z ,\"]{0,10}",
            (
                proptest::option::of(prop_oneof!["clean", "throttled", "sustained"]),
                proptest::option::of(any::<u32>()),
                proptest::option::of(0.0f64..1.0),
            ),
            arb_counters(),
        )
            .prop_map(
                |(
                    (e, k, i, v, shape),
                    (cache, timing),
                    x,
                    samples,
                    (ok, err, clocks),
                    bound,
                    (status, clean_samples, throttled_fraction),
                    counters,
                )| {
                    Record {
                        experiment: e,
                        kernel: k,
                        impl_: i,
                        variant: v,
                        shape,
                        dtype: "fp16".into(),
                        cache: cache.to_string(),
                        timing: timing.to_string(),
                        median_ms: x[0],
                        min_ms: x[1],
                        p10_ms: x[2],
                        p90_ms: x[3],
                        noise: x[4],
                        samples,
                        flops: x[5],
                        bytes: x[6],
                        tflops: x[7],
                        gbs: x[8],
                        ai: x[9],
                        bound,
                        pct_attainable: x[10],
                        verified: ok,
                        max_rel_err: err,
                        clocks,
                        status,
                        clean_samples,
                        throttled_fraction,
                        counters,
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn csv_round_trips_any_records(records in proptest::collection::vec(arb_record(), 0..6)) {
            let text = render_csv(&records).unwrap();
            prop_assert_eq!(parse_csv(&text).unwrap(), records);
        }
    }
}
