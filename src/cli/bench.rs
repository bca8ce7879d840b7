//! `roofline bench <kernel>`: verify, time and place one kernel (and its references).

use super::args::{parse_size, MeasureArgs, OutputArgs};
use super::output::emit;
use crate::error::usage;
use crate::gpu::Gpu;
use crate::kernels::copy::CopyCase;
use crate::kernels::variants;
use crate::roofline::probe;
use crate::session::Session;
use anyhow::Result;
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub kernel: BenchKernel,
}

#[derive(Subcommand, Debug)]
pub enum BenchKernel {
    /// Device-to-device copy (the HBM ceiling's kernel)
    Copy {
        /// Bytes to copy, e.g. 1GiB
        #[arg(long, value_parser = parse_size, default_value = "1GiB")]
        bytes: u64,
        /// Kernel variant (v1, v2, ... or best)
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// Opens the GPU and the ceilings used to place results.
pub fn open_session(device: usize) -> Result<Session> {
    let gpu = Gpu::open(device)?;
    let ceilings = probe::load_or_measure(&gpu, false, false)?;
    Ok(Session::new(gpu, ceilings))
}

/// Exit non-zero when any verification failed (after the results were written).
pub fn finish(session: &Session) -> Result<()> {
    let failed = session.failures();
    if failed.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = failed.iter().map(|r| r.key().to_string()).collect();
    Err(crate::error::LabError::Verification(names.join("; ")).into())
}

pub fn run(device: usize, a: &BenchArgs) -> Result<()> {
    match &a.kernel {
        BenchKernel::Copy { bytes, variant, measure, output } => {
            let cfg = measure.config()?;
            output.validate()?;
            if bytes % 2 != 0 {
                return Err(usage("--bytes must be even (the copy moves fp16 elements)"));
            }
            let v = variants::parse(variant, &CopyCase::variants(), "copy").map_err(usage)?;
            let mut s = open_session(device)?;
            let mut case = CopyCase::new(*bytes, v, measure.seed);
            s.run(&mut case, "bench", &cfg, !measure.no_verify)?;
            emit(&s.results(), output)?;
            finish(&s)
        }
    }
}
