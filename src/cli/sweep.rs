//! `roofline sweep <square|fusion|decode|elementwise>`.

use super::args::OutputArgs;
use super::bench::{finish, open_session};
use super::output::emit;
use crate::sweeps::{self, Sweep, SweepOpts};
use anyhow::Result;
use clap::{Args, ValueEnum};

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum SweepName {
    /// Square HGEMM 128..8192: ours (every variant at 2048-8192) and cuBLAS
    Square,
    /// Fused vs unfused vs cuBLASLt GEMM+bias+GELU, M = 1..8192 at N = K = 4096, and squares
    Fusion,
    /// Decode batch 1..256 at N = K = 4096 and 8192, cold and hot L2, ours and cuBLAS
    Decode,
    /// ReLU, GELU, LayerNorm and copy from 1 MiB to 1 GiB, cold/hot, launch/graph
    Elementwise,
}

impl SweepName {
    pub fn sweep(self) -> Sweep {
        match self {
            SweepName::Square => Sweep::Square,
            SweepName::Fusion => Sweep::Fusion,
            SweepName::Decode => Sweep::Decode,
            SweepName::Elementwise => Sweep::Elementwise,
        }
    }
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[arg(value_enum)]
    pub which: SweepName,
    /// Fewer sizes, for a fast look
    #[arg(long)]
    pub quick: bool,
    /// Skip the correctness check before each timing
    #[arg(long)]
    pub no_verify: bool,
    /// Seed for the random inputs
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(device: usize, a: &SweepArgs) -> Result<()> {
    a.output.validate()?;
    let opts = SweepOpts {
        quick: a.quick,
        verify: !a.no_verify,
        seed: a.seed,
        ..SweepOpts::default()
    };
    let plan = sweeps::plan(a.which.sweep(), &opts);
    let mut s = open_session(device)?;
    sweeps::check_fits(&s.gpu, &plan)?;
    s.verbose = true;
    sweeps::run(&mut s, plan, opts.verify, a.which.sweep().name())?;
    emit(&s.results(), &a.output)?;
    finish(&s)
}
