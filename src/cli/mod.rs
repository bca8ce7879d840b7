//! The command line: parsing, validation before the GPU is touched, and dispatch.

pub mod args;
mod bench;
mod ceilings;
mod info;
mod output;

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
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show the GPU's properties, its datasheet ceilings and ridge point
    Info {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Measure (or show cached) ceilings: HBM, L2, Tensor Core, FP32, launch latency
    Ceilings(ceilings::CeilingsArgs),
    /// Time one kernel: verify, measure, place on the roofline
    Bench(bench::BenchArgs),
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
    install_interrupt_handler();
    match cli.command {
        Command::Info { json } => info::run(cli.device, json),
        Command::Ceilings(a) => ceilings::run(cli.device, &a),
        Command::Bench(a) => bench::run(cli.device, &a),
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
