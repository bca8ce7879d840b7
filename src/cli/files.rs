//! Commands on saved results, no GPU needed: `compare` (a regression gate) and `plot`.

use crate::error::{usage, LabError};
use crate::results::{compare, ResultsFile};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The baseline results file
    pub old: PathBuf,
    /// The new results file
    pub new: PathBuf,
    /// Slowdowns smaller than this percentage never count (noise aside)
    #[arg(long, allow_negative_numbers = true, default_value_t = 5.0)]
    pub threshold: f64,
    /// Print Markdown instead of a table
    #[arg(long)]
    pub markdown: bool,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A results.json written by bench, sweep or report
    pub results: PathBuf,
    /// Folder for the SVG charts
    #[arg(long)]
    pub out: PathBuf,
}

fn load(p: &PathBuf) -> Result<ResultsFile> {
    if !p.is_file() {
        return Err(usage(format!("{}: no such results file", p.display())));
    }
    ResultsFile::load(p)
        .with_context(|| format!("{} is not a roofline results file", p.display()))
        .map_err(|e| usage(format!("{e:#}")))
}

pub fn compare_cmd(a: &CompareArgs) -> Result<()> {
    if !(a.threshold >= 0.0 && a.threshold.is_finite()) {
        return Err(usage(
            "--threshold must be a non-negative percentage, e.g. 5",
        ));
    }
    let (old, new) = (load(&a.old)?, load(&a.new)?);
    let report = compare(&old, &new, a.threshold);
    if a.markdown {
        println!("{}", report.render_markdown());
    } else {
        println!("{}", report.render_table());
    }
    println!("{}", report.summary());
    if report.any_slower() {
        return Err(LabError::Regression(format!(
            "slower than the {}% threshold beyond the noise",
            a.threshold
        ))
        .into());
    }
    Ok(())
}

pub fn plot_cmd(a: &PlotArgs) -> Result<()> {
    if a.out.exists() && !a.out.is_dir() {
        return Err(usage(format!(
            "--out {} exists and is not a folder: give a folder for the charts",
            a.out.display()
        )));
    }
    let results = load(&a.results)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    for p in crate::plot::plot_all(&results, &a.out)? {
        println!("{}", p.display());
    }
    Ok(())
}
