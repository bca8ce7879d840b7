//! Reading Nsight Compute's `--csv --page raw` output: a pure function over its text.
//!
//! ncu's stdout mixes its own `==PROF==` / `==WARNING==` / `==ERROR==` lines and whatever the
//! profiled program printed with the CSV. The CSV rows are the lines that start with `"`:
//! the first is the header (`"ID","Process ID",...`, one column per metric), the second the
//! units, then one row per profiled kernel. Numbers carry thousands separators
//! ("33,591,808"); a value ncu could not collect reads "n/a" or is empty.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

/// One profiled kernel: its name and the metrics that had a number, in base units (bytes,
/// nanoseconds, percent, counts).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    pub name: String,
    pub values: BTreeMap<String, f64>,
}

/// Every kernel of one profiled range, and the metric columns ncu printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub kernels: Vec<KernelRow>,
    pub columns: Vec<String>,
}

impl Profile {
    /// The metric summed over all kernels (a library call may launch several). None when
    /// the column is missing or any kernel has no number for it: a partial sum would
    /// undercount silently.
    pub fn sum(&self, metric: &str) -> Option<f64> {
        if self.kernels.is_empty() || !self.columns.iter().any(|c| c == metric) {
            return None;
        }
        self.kernels
            .iter()
            .map(|k| k.values.get(metric).copied())
            .sum()
    }

    /// The metric averaged over the kernels, each weighted by `weight` (e.g. its GPU time);
    /// equal weights when the weight is missing or all zero. None as for [`Profile::sum`].
    pub fn weighted_mean(&self, metric: &str, weight: &str) -> Option<f64> {
        let vals: Vec<f64> = self
            .kernels
            .iter()
            .map(|k| k.values.get(metric).copied())
            .collect::<Option<_>>()?;
        if vals.is_empty() {
            return None;
        }
        let ws: Vec<f64> = match self
            .kernels
            .iter()
            .map(|k| k.values.get(weight).copied())
            .collect::<Option<Vec<f64>>>()
        {
            Some(w) if w.iter().sum::<f64>() > 0.0 => w,
            _ => vec![1.0; vals.len()],
        };
        let total: f64 = ws.iter().sum();
        Some(vals.iter().zip(&ws).map(|(v, w)| v * w).sum::<f64>() / total)
    }
}

/// A number as ncu prints it: "33,591,808", "2.32", "699,829.33". None for "n/a", "" and
/// anything else that is not a finite number.
pub fn number(cell: &str) -> Option<f64> {
    let t: String = cell.trim().chars().filter(|&c| c != ',').collect();
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The factor that brings a value in `unit` to the base unit (bytes, nanoseconds). With
/// `--print-units base` ncu already prints base units; this covers output made without it.
fn unit_scale(unit: &str) -> f64 {
    match unit.trim() {
        "Kbyte" | "KB" => 1e3,
        "Mbyte" | "MB" => 1e6,
        "Gbyte" | "GB" => 1e9,
        "Tbyte" | "TB" => 1e12,
        "usecond" | "us" => 1e3,
        "msecond" | "ms" => 1e6,
        "second" | "s" => 1e9,
        _ => 1.0,
    }
}

/// The CSV part of ncu's output, parsed. An output without a CSV header (ncu failed, or
/// profiled nothing) is an error that quotes ncu's own `==ERROR==` / `==WARNING==` lines.
pub fn parse(text: &str) -> Result<Profile> {
    let csv_lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| l.starts_with('"'))
        .collect();
    let Some(start) = csv_lines.iter().position(|l| l.starts_with("\"ID\",")) else {
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("==ERROR==") || l.starts_with("==WARNING=="))
            .collect();
        bail!(
            "no CSV table in Nsight Compute's output (expected a header line starting with \
             \"ID\"){}",
            if said.is_empty() {
                String::new()
            } else {
                format!("; it said: {}", said.join(" | "))
            }
        );
    };
    let block = csv_lines[start..].join("\n");
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(block.as_bytes());
    let mut rows = rdr.records();
    let header = rows
        .next()
        .context("reading the CSV header")?
        .context("parsing the CSV header")?;
    let columns: Vec<String> = header.iter().map(str::to_string).collect();
    let name_col = columns
        .iter()
        .position(|c| c == "Kernel Name")
        .context("the CSV header has no \"Kernel Name\" column")?;
    let units = match rows.next() {
        Some(u) => u.context("parsing the CSV units row")?,
        None => bail!("the CSV has a header but no units row and no kernels"),
    };
    // The units row leaves the identifying columns empty; a kernel row has its ID there.
    if !units.get(0).is_some_and(str::is_empty) {
        bail!("the CSV's second row is not the units row (its first cell is not empty)");
    }
    let scales: Vec<f64> = units.iter().map(unit_scale).collect();
    let mut kernels = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.with_context(|| format!("parsing kernel row {}", i + 1))?;
        if row.len() != columns.len() {
            bail!(
                "kernel row {} has {} cells, the header {}",
                i + 1,
                row.len(),
                columns.len()
            );
        }
        let values = columns
            .iter()
            .zip(row.iter())
            .zip(&scales)
            .enumerate()
            .filter(|(c, _)| *c != name_col)
            .filter_map(|(_, ((col, cell), s))| number(cell).map(|v| (col.clone(), v * s)))
            .collect();
        kernels.push(KernelRow {
            name: row[name_col].to_string(),
            values,
        });
    }
    Ok(Profile { kernels, columns })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEMV_HOT: &str = include_str!("../../tests/data/ncu_gemv_hot.csv");

    #[test]
    fn stored_h200_gemv_output() {
        let p = parse(GEMV_HOT).unwrap();
        assert_eq!(p.kernels.len(), 3, "three launches of one kernel");
        assert!(p.kernels.iter().all(|k| k.name.contains("gemv_slab1")));
        // 33,591,808 bytes read per kernel: W (32 MiB) and x, once each.
        let k0 = &p.kernels[0];
        assert_eq!(k0.values["dram__bytes_read.sum"], 33_591_808.0);
        assert_eq!(p.sum("dram__bytes_read.sum"), Some(3.0 * 33_591_808.0));
        assert_eq!(
            p.sum("dram__bytes_write.sum"),
            Some(386_816.0 + 482_816.0 + 404_736.0)
        );
        assert_eq!(
            p.sum("gpu__time_duration.sum"),
            Some(11_552.0 * 2.0 + 11_520.0)
        );
        // hit rates 2.32, 2.30, 2.29 weighted by 11552, 11552, 11520 ns
        let want = (2.32 * 11_552.0 + 2.30 * 11_552.0 + 2.29 * 11_520.0) / 34_624.0;
        let got = p
            .weighted_mean("lts__t_sector_hit_rate.pct", "gpu__time_duration.sum")
            .unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        // the expanded rollups are columns of their own
        assert_eq!(k0.values["dram__bytes_read.avg"], 699_829.33);
        // a metric this output does not have
        assert_eq!(
            p.sum("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"),
            None
        );
    }

    fn synthetic(rows: &[&str]) -> String {
        let mut s = String::from(
            "==PROF== Connected to process 1 (/bin/roofline)\n\
             \"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\",\"lts__t_sector_hit_rate.pct\"\n\
             \"\",\"\",\"Kbyte\",\"usecond\",\"%\"\n",
        );
        for r in rows {
            s.push_str(r);
            s.push('\n');
        }
        s.push_str("==PROF== Disconnected from process 1\n");
        s
    }

    #[test]
    fn two_kernels_are_summed_with_units_scaled() {
        let p = parse(&synthetic(&[
            "\"0\",\"gemm_main(int, int)\",\"1,000\",\"3\",\"50\"",
            "\"1\",\"splitk_reduce\",\"24.5\",\"1\",\"90\"",
        ]))
        .unwrap();
        assert_eq!(p.kernels.len(), 2);
        assert_eq!(p.kernels[0].name, "gemm_main(int, int)");
        assert_eq!(p.sum("dram__bytes_read.sum"), Some(1_024_500.0));
        assert_eq!(p.sum("gpu__time_duration.sum"), Some(4_000.0));
        // 50% over 3 us and 90% over 1 us: 60%
        let h = p
            .weighted_mean("lts__t_sector_hit_rate.pct", "gpu__time_duration.sum")
            .unwrap();
        assert!((h - 60.0).abs() < 1e-12, "{h}");
    }

    #[test]
    fn missing_metrics_and_values_are_none() {
        let p = parse(&synthetic(&[
            "\"0\",\"k\",\"n/a\",\"2\",\"\"",
            "\"1\",\"k\",\"8\",\"2\",\"40\"",
        ]))
        .unwrap();
        assert_eq!(p.sum("no_such__metric.sum"), None);
        // one kernel without a number: no sum rather than half of one
        assert_eq!(p.sum("dram__bytes_read.sum"), None);
        assert_eq!(
            p.weighted_mean("lts__t_sector_hit_rate.pct", "gpu__time_duration.sum"),
            None
        );
        // equal weights when the weight metric is missing
        let q = parse(&synthetic(&[
            "\"0\",\"k\",\"1\",\"2\",\"10\"",
            "\"1\",\"k\",\"1\",\"2\",\"30\"",
        ]))
        .unwrap();
        assert_eq!(
            q.weighted_mean("lts__t_sector_hit_rate.pct", "nope"),
            Some(20.0)
        );
    }

    #[test]
    fn header_without_kernels_is_an_empty_profile() {
        let p = parse(&synthetic(&[])).unwrap();
        assert!(p.kernels.is_empty());
        assert_eq!(p.sum("dram__bytes_read.sum"), None);
    }

    #[test]
    fn garbage_is_a_clear_error() {
        let e = parse("hello\nworld\n").unwrap_err().to_string();
        assert!(e.contains("no CSV table"), "{e}");
        let e = parse(
            "==PROF== Connected to process 7\n==ERROR== ERR_NVGPUCTRPERM - The user does not \
             have permission to access NVIDIA GPU Performance Counters\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("ERR_NVGPUCTRPERM"), "{e}");
        let e = parse("\"ID\",\"Kernel Name\",\"a\"\n\"\",\"\",\"byte\"\n\"0\",\"k\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 1"), "{e}");
        let e = parse("\"ID\",\"x\"\n").unwrap_err().to_string();
        assert!(e.contains("Kernel Name"), "{e}");
        let e = parse("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("units row"), "{e}");
        assert_eq!(number("33,591,808"), Some(33_591_808.0));
        assert_eq!(number("n/a"), None);
        assert_eq!(number("inf"), None);
    }
}
