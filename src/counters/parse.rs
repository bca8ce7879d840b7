//! Reading Nsight Compute's `--csv --page raw` output: a pure function over its text.
//!
//! ncu's stdout mixes its own `==PROF==` / `==WARNING==` / `==ERROR==` lines and whatever the
//! profiled program printed with the CSV. The CSV rows are the lines that start with `"`:
//! the first is the header (`"ID","Process ID",...`, one column per metric), the second the
//! units, then one row per profiled kernel, in launch order. Numbers carry thousands
//! separators ("33,591,808"); a value ncu could not collect reads "n/a" or is empty.
//!
//! One ncu process profiles several cases (`--counters`): the probe child launches a marker
//! kernel at the start of each case's range, and [`split_at_markers`] cuts the rows there.

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

/// A profile of several cases cut at the marker kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// One profile per marker, in launch order: the kernels after that marker up to the next
    /// one (the markers themselves left out). A case whose range ran no kernel is empty.
    pub cases: Vec<Profile>,
    /// Kernels before the first marker: no case's (none when the probe ran as designed).
    pub stray: usize,
}

/// Whether ncu's kernel name is the marker's (`name`, `void name(...)` or `name()`).
pub fn is_marker(kernel_name: &str, marker: &str) -> bool {
    let n = kernel_name.trim();
    let n = n.strip_prefix("void ").unwrap_or(n);
    n.split('(').next().unwrap_or("").trim() == marker
}

/// Cuts a profile of several cases at the kernels named `marker`: the probe child launches
/// one at the start of each case's range, so the i-th part holds exactly case i's kernels
/// (a library call may launch several; `--repeat` launches are all the case's).
pub fn split_at_markers(p: &Profile, marker: &str) -> Split {
    let mut cases: Vec<Profile> = Vec::new();
    let mut stray = 0;
    for k in &p.kernels {
        if is_marker(&k.name, marker) {
            cases.push(Profile {
                kernels: Vec::new(),
                columns: p.columns.clone(),
            });
        } else if let Some(case) = cases.last_mut() {
            case.kernels.push(k.clone());
        } else {
            stray += 1;
        }
    }
    Split { cases, stray }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEMV_HOT: &str = include_str!("../../tests/data/ncu_gemv_hot.csv");
    /// Two cases under one ncu process (synthetic, in ncu's raw CSV form): a GEMV of one
    /// kernel, then a cuBLAS call of two (main kernel and split-K reduction), each range
    /// opened by the marker kernel.
    const TWO_CASES: &str = include_str!("../../tests/data/ncu_two_cases.csv");
    const MARKER: &str = crate::gpu::PROFILER_MARKER;

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
    fn two_cases_split_at_their_markers() {
        let p = parse(TWO_CASES).unwrap();
        assert_eq!(p.kernels.len(), 5, "two markers and three kernels");
        let split = split_at_markers(&p, MARKER);
        assert_eq!(split.stray, 0);
        assert_eq!(split.cases.len(), 2);
        let (gemv, gemm) = (&split.cases[0], &split.cases[1]);
        assert_eq!(gemv.kernels.len(), 1);
        assert!(gemv.kernels[0].name.contains("gemv_slab1"));
        assert_eq!(gemv.sum("dram__bytes_read.sum"), Some(33_591_808.0));
        // the marker's own 1,056 ns are no case's
        assert_eq!(gemv.sum("gpu__time_duration.sum"), Some(11_552.0));
        assert_eq!(gemm.kernels.len(), 2, "the library call's two kernels");
        assert!(gemm.kernels[1].name.contains("splitKreduce"));
        assert_eq!(
            gemm.sum("dram__bytes_read.sum"),
            Some(20_000_000.0 + 4_194_304.0)
        );
        assert_eq!(gemm.sum("gpu__time_duration.sum"), Some(103_000.0));
        assert!(split.cases.iter().all(|c| c.columns == p.columns));
    }

    #[test]
    fn markers_split_synthetic_rows_and_leave_stray_ones_out() {
        let m = |i: usize| format!("\"{i}\",\"{MARKER}\",\"0\",\"1\",\"0\"");
        let k = |i: usize, name: &str, bytes: u32| {
            format!("\"{i}\",\"{name}\",\"{bytes}\",\"2\",\"50\"")
        };
        let rows = [
            k(0, "stray", 1),
            m(1),
            k(2, "a", 10),
            m(3),
            m(4),
            k(5, "void b<1>(int)", 20),
            k(6, "c", 30),
        ];
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let split = split_at_markers(&parse(&synthetic(&refs)).unwrap(), MARKER);
        assert_eq!(split.stray, 1);
        let counts: Vec<usize> = split.cases.iter().map(|c| c.kernels.len()).collect();
        assert_eq!(
            counts,
            vec![1, 0, 2],
            "the second case's range ran no kernel"
        );
        assert_eq!(split.cases[2].sum("dram__bytes_read.sum"), Some(50_000.0));
        // no markers: every row is stray
        let none = split_at_markers(
            &parse(&synthetic(&["\"0\",\"k\",\"1\",\"1\",\"1\""])).unwrap(),
            MARKER,
        );
        assert_eq!((none.cases.len(), none.stray), (0, 1));
        assert!(is_marker(&format!("void {MARKER}()"), MARKER));
        assert!(is_marker(&format!(" {MARKER} "), MARKER));
        assert!(!is_marker(&format!("{MARKER}_2"), MARKER));
        assert!(!is_marker(&format!("my_{MARKER}"), MARKER));
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
