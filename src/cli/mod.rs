//! The command line: parsing, validation before the GPU is touched, and dispatch.

pub mod args;
mod bench;
mod ceilings;
mod check;
mod files;
mod info;
mod list;
mod new;
mod output;
mod probe_case;
mod report;
mod report_resume;
mod report_user;
mod sweep;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "roofline",
    version,
    about = "Where GPU kernels sit on the roofline: our CUDA kernels beside cuBLAS, timed honestly",
    propagate_version = true
)]
pub struct Cli {
    /// CUDA device index
    #[arg(long, global = true, default_value_t = 0)]
    pub device: usize,
    /// Debug: make the first measured kernel fault (tests fault reporting)
    #[arg(long, global = true, hide = true)]
    pub debug_inject_fault: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List every kernel family: variants, references, implementations, what "best" runs
    List(list::ListArgs),
    /// Write a correct, simple starting kernel of a family to NAME.cu (bring your own kernel)
    New(new::NewArgs),
    /// Show the GPU's properties, its datasheet ceilings and ridge point
    Info {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Measure (or show cached) ceilings: HBM, L2, Tensor Core, FP32, launch latency
    Ceilings(ceilings::CeilingsArgs),
    /// Time one kernel: verify, measure, place on the roofline
    Bench(Box<bench::BenchArgs>),
    /// Run one of the article's sweeps
    Sweep(sweep::SweepArgs),
    /// Numerical check of every kernel and variant (fixed and random shapes)
    Check(check::CheckArgs),
    /// Ceilings, every sweep and the check, written as report.md + results.json + SVGs
    Report(report::ReportArgs),
    /// Compare two results files: a noise-aware regression gate (no GPU needed)
    Compare(files::CompareArgs),
    /// Redraw every chart from a saved results.json (no GPU needed)
    Plot(files::PlotArgs),
    /// One launch of one case inside a profiler range, for --counters (run under ncu)
    #[command(hide = true)]
    ProbeCase(Box<probe_case::ProbeCaseArgs>),
}

/// Parses the process arguments and runs the command.
pub fn run() -> Result<()> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with code 0; usage errors exit 2 via clap.
            e.exit();
        }
    };
    if crate::supervise::wanted(loads_user_kernel(&cli.command)) {
        std::process::exit(crate::supervise::run_child()?);
    }
    install_interrupt_handler();
    if cli.debug_inject_fault {
        crate::session::INJECT_FAULT.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    match cli.command {
        Command::List(a) => list::run(&a),
        Command::New(a) => new::run(&a),
        Command::Info { json } => info::run(cli.device, json),
        Command::Ceilings(a) => ceilings::run(cli.device, &a),
        Command::Bench(a) => bench::run(cli.device, &a),
        Command::Sweep(a) => sweep::run(cli.device, &a),
        Command::Check(a) => check::run(cli.device, &a),
        Command::Report(a) => report::run(cli.device, &a),
        Command::Compare(a) => files::compare_cmd(&a),
        Command::Plot(a) => files::plot_cmd(&a),
        Command::ProbeCase(a) => probe_case::run(cli.device, &a),
    }
}

/// Whether the command runs a user's kernel on the GPU (it then runs under crate::supervise).
fn loads_user_kernel(c: &Command) -> bool {
    match c {
        Command::Bench(a) => {
            (a.user.kernel_file.is_some() && !a.user.compile_only) || a.user.plugin.is_some()
        }
        Command::Check(a) => a.kernel_file.is_some() || a.plugin.is_some(),
        Command::Report(a) => !a.kernel_files.is_empty(),
        _ => false,
    }
}

/// First Ctrl-C: finish the current case, then save what was measured. Second: exit now.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        use std::sync::atomic::Ordering;
        if crate::session::INTERRUPTED.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted twice: exiting without saving");
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: finishing the current measurement, then saving results (Ctrl-C again to quit now)");
    });
}
