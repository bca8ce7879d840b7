//! `roofline check`: the numerical check of every kernel and variant; non-zero exit on any
//! failure.

use crate::check::{self, CheckRow};
use crate::error::LabError;
use crate::gpu::Gpu;
use crate::registry::{self, Family};
use anyhow::Result;
use clap::Args;
use comfy_table::Table;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Seeded random shapes per kernel family, on top of the fixed shapes
    #[arg(long, default_value_t = 20)]
    pub random: usize,
    /// Seed for the random shapes and inputs
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Families to check (default: all; `roofline list` names them)
    #[arg(long, value_delimiter = ',')]
    pub kernel: Vec<String>,
    /// Print every case, not only a summary per family and the failures
    #[arg(long)]
    pub verbose: bool,
}

pub fn families(a: &CheckArgs) -> Result<Vec<&'static Family>> {
    if a.kernel.is_empty() {
        return Ok(registry::ALL.to_vec());
    }
    a.kernel
        .iter()
        .map(|k| registry::get(k, "--kernel "))
        .collect()
}

/// Runs the check and returns its rows (used by `report` too).
pub fn run_rows(
    gpu: &Gpu,
    fams: &[&'static Family],
    random: usize,
    seed: u64,
) -> Result<Vec<CheckRow>> {
    let total: usize = fams
        .iter()
        .map(|f| check::cases(f, random, seed).len())
        .sum();
    let pb = ProgressBar::new(total as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {wide_msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    pb.set_prefix("check");
    let mut rows = Vec::new();
    for f in fams {
        rows.extend(check::run_family(gpu, f, random, seed, &pb)?);
    }
    pb.finish_and_clear();
    Ok(rows)
}

/// Summary per family plus every failure, as a table.
pub fn render(rows: &[CheckRow], verbose: bool) -> String {
    let mut t = Table::new();
    t.set_header(vec![
        "family",
        "cases",
        "passed",
        "worst rel err",
        "failures",
    ]);
    for f in check::summarize(rows) {
        t.add_row(vec![
            f.family.to_string(),
            f.cases.to_string(),
            f.passed.to_string(),
            format!("{:.2e}", f.worst_rel_err),
            if f.failed.is_empty() {
                "-".into()
            } else {
                f.failed.join(", ")
            },
        ]);
    }
    let mut out = t.to_string();
    let detail: Vec<&CheckRow> = rows.iter().filter(|r| verbose || !r.passed).collect();
    if !detail.is_empty() {
        let mut d = Table::new();
        d.set_header(vec!["case", "result", "detail"]);
        for r in detail {
            d.add_row(vec![
                r.case.clone(),
                if r.passed {
                    "ok".into()
                } else {
                    "FAILED".into()
                },
                r.detail.clone(),
            ]);
        }
        out += "\n";
        out += &d.to_string();
    }
    out
}

pub fn run(device: usize, a: &CheckArgs) -> Result<()> {
    let fams = families(a)?;
    let gpu = Gpu::open(device)?;
    let rows = run_rows(&gpu, &fams, a.random, a.seed)?;
    println!("{}", render(&rows, a.verbose));
    let failed = rows.iter().filter(|r| !r.passed).count();
    println!("{} passed, {} failed", rows.len() - failed, failed);
    if failed > 0 {
        return Err(
            LabError::Verification(format!("{failed} of {} cases failed", rows.len())).into(),
        );
    }
    Ok(())
}
