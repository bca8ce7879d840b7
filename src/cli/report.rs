//! `roofline report --out DIR`: measure the ceilings, run every sweep and the numerical
//! check, and write DIR/report.md, DIR/results.json and the SVG charts.

use super::check as check_cli;
use super::report_resume as resume;
use crate::check::CheckRow;
use crate::gpu::Gpu;
use crate::measure::timesplit;
use crate::results::{render_report, write_atomic};
use crate::roofline::probe;
use crate::session::Session;
use crate::sweeps::{self, Sweep, SweepOpts};
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Folder for report.md, results.json and the charts (created if missing)
    #[arg(long)]
    pub out: PathBuf,
    /// Fewer sizes per sweep and fewer random check shapes
    #[arg(long)]
    pub quick: bool,
    /// Random shapes per kernel family in the numerical check (`roofline check --random N`
    /// runs more on its own)
    #[arg(long, default_value_t = 20)]
    pub random: usize,
    /// Reuse cached ceilings instead of measuring them again (--quick does when it can)
    #[arg(long)]
    pub keep_ceilings: bool,
    /// Seed for inputs and random shapes
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue a report that stopped early (Ctrl-C, or `timeout -s INT` under a time limit):
    /// keep the sweeps DIR/partial.json holds, measured by this binary on this GPU, and run
    /// the rest; without that file, start afresh
    #[arg(long)]
    pub resume: bool,
    /// After the sweeps, run a few main cases (GEMV cold and hot, HGEMM 4096³, LayerNorm,
    /// GELU) once under Nsight Compute (ncu): measured DRAM bytes beside the model's
    #[arg(long)]
    pub counters: bool,
    /// Your kernel file(s) (launch block naming the family), each timed interleaved with our
    /// best and the library at its family's default shape (experiment "user"); repeatable
    #[arg(long = "kernel-file", value_name = "FILE.cu")]
    pub kernel_files: Vec<PathBuf>,
}

fn check_markdown(rows: &[CheckRow]) -> String {
    let mut s =
        String::from("| family | cases | passed | worst rel. error |\n|---|---:|---:|---:|\n");
    for f in crate::check::summarize(rows) {
        s += &format!(
            "| {} | {} | {} | {:.2e} |\n",
            f.label(),
            f.cases,
            f.passed,
            f.worst_rel_err
        );
    }
    for r in rows.iter().filter(|r| !r.passed) {
        s += &format!("\nFAILED: {} — {}\n", r.case, r.detail);
    }
    s
}

fn prepare_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(crate::error::usage(format!(
            "--out {} exists and is not a folder",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

pub fn run(device: usize, a: &ReportArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let mut phases: Vec<(String, f64)> = Vec::new();
    // Each phase's wall time, and on a line of its own where it went (measure::timesplit).
    let mut lap = {
        let mut last = std::time::Instant::now();
        let mut split = timesplit::snapshot();
        move |name: &str, phases: &mut Vec<(String, f64)>| {
            let s = last.elapsed().as_secs_f64();
            last = std::time::Instant::now();
            let now = timesplit::snapshot();
            eprintln!("{name}: {s:.1} s");
            if let Some(d) = now.since(&split).describe(s) {
                eprintln!("  {name} time split (s): {d}");
            }
            split = now;
            phases.push((name.to_string(), (s * 10.0).round() / 10.0));
        }
    };
    prepare_dir(&a.out)?;
    let user_kernels = super::report_user::plan(&a.kernel_files)?;
    let earlier = if a.resume {
        resume::load(&a.out)?
    } else {
        None
    };
    let mut counters = a
        .counters
        .then(|| crate::counters::CounterPass::new(device))
        .flatten();
    let gpu = Gpu::open(device)?;
    let uuid = probe::gpu_uuid(&gpu)?;
    if let Some(cp) = &earlier {
        resume::check_resumable(cp, &uuid, crate::GIT_COMMIT)?;
        eprintln!(
            "resuming the report started {}: {} done ({} records)",
            cp.started,
            cp.sweeps_done.join(", "),
            cp.records.len()
        );
    }
    let mut cp = match earlier {
        Some(cp) => cp,
        None => resume::Checkpoint {
            gpu_uuid: uuid,
            git_commit: crate::GIT_COMMIT.into(),
            started: crate::session::now_rfc3339(),
            ceilings: probe::load_or_measure(&gpu, !(a.keep_ceilings || a.quick), a.quick)?,
            sweeps_done: Vec::new(),
            records: Vec::new(),
        },
    };
    let resumed_after = cp.sweeps_done.clone();
    lap("ceilings", &mut phases);
    let mut s = Session::new(gpu, cp.ceilings.clone());
    s.reuse_verifications = true;
    s.records = std::mem::take(&mut cp.records);
    let opts = SweepOpts {
        quick: a.quick,
        seed: a.seed,
        ..SweepOpts::default()
    };
    for sweep in Sweep::ALL {
        if s.is_interrupted() {
            break;
        }
        if cp.sweeps_done.iter().any(|d| d == sweep.name()) {
            continue;
        }
        let plan = sweeps::plan(sweep, &opts);
        sweeps::check_fits(&s.gpu, &plan)?;
        sweeps::run(&mut s, plan, true, sweep.name())?;
        if !s.is_interrupted() {
            // A sweep cut short is measured again in full by the next --resume.
            cp.sweeps_done.push(sweep.name().into());
            cp.records.clone_from(&s.records);
            resume::save(&a.out, &cp)?;
        }
        lap(sweep.name(), &mut phases);
    }
    if !s.is_interrupted() && !user_kernels.is_empty() {
        let cfg = crate::measure::MeasureConfig {
            stop: opts.stop,
            warmup_ms: opts.warmup_ms,
            ..Default::default()
        };
        super::report_user::run(&mut s, user_kernels, &cfg, a.seed)?;
        lap("user kernels", &mut phases);
    }
    let random = if a.quick { a.random.min(4) } else { a.random };
    let rows = if s.is_interrupted() {
        Vec::new()
    } else {
        // Every family in fp16, and the GEMM families' bf16 forms in bf16.
        let dtypes = crate::dtype::Dtype::ALL;
        check_cli::run_rows(&s.gpu, crate::registry::ALL, random, a.seed, &dtypes)?
    };
    lap("check", &mut phases);

    if let Some(pass) = counters.as_mut().filter(|_| !s.is_interrupted()) {
        eprintln!("hardware counters of the report's main cases (Nsight Compute) ...");
        pass.attach(&crate::counters::report_list::specs(a.seed), &mut s.records);
        lap("counters", &mut phases);
    }
    let mut results = s.results();
    results.run.wall_s = Some((started.elapsed().as_secs_f64() * 10.0).round() / 10.0);
    results.run.phases_s = phases;
    results.save(a.out.join("results.json"))?;
    let charts = crate::plot::plot_all(&results, &a.out)?;
    let names: Vec<PathBuf> = charts
        .iter()
        .filter_map(|p| p.file_name().map(PathBuf::from))
        .collect();
    let mut md = render_report(&results, &names);
    md += "\n## Numerical check\n\n";
    md += &format!(
        "Every kernel and variant at fixed awkward shapes plus {random} seeded random shapes per family \
         (seed {}), against float64 CPU references and cuBLAS; outputs poisoned before each run.\n\n",
        a.seed
    );
    md += &check_markdown(&rows);
    if !resumed_after.is_empty() {
        md += &format!(
            "\nMeasured in two or more calls on this GPU and build: the {} sweep(s) come from the \
             call that started {} (`--resume`).\n",
            resumed_after.join(", "),
            cp.started
        );
    }
    md += &format!(
        "\nRegenerate: `roofline report --out {}{}{}` (commit {}).\n",
        a.out.display(),
        if a.quick { " --quick" } else { "" },
        if a.counters { " --counters" } else { "" },
        crate::GIT_COMMIT
    );
    write_atomic(a.out.join("report.md"), md.as_bytes())?;
    eprintln!(
        "wrote {}/report.md, results.json and {} chart(s)",
        a.out.display(),
        charts.len()
    );
    let failed = rows.iter().filter(|r| !r.passed).count();
    if failed > 0 || !s.failures().is_empty() {
        return Err(crate::error::LabError::Verification(format!(
            "{} check case(s) and {} benchmark(s) failed; see report.md",
            failed,
            s.failures().len()
        ))
        .into());
    }
    if s.is_interrupted() {
        return Err(crate::error::LabError::Interrupted(format!(
            "report.md and results.json hold the {} record(s) measured before Ctrl-C; `roofline \
             report --out {} --resume` continues after the finished sweeps ({})",
            s.records.len(),
            a.out.display(),
            resume::FILE_NAME
        ))
        .into());
    }
    resume::remove(&a.out)?;
    Ok(())
}
