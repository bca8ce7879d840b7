//! `roofline sweep <square|llm|fusion|decode|elementwise>`.

use super::args::OutputArgs;
use super::bench::{finish, open_session};
use super::output::emit;
use crate::dtype::Dtype;
use crate::error::usage;
use crate::sweeps::{self, Sweep, SweepOpts};
use anyhow::Result;
use clap::{Args, ValueEnum};

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum SweepName {
    /// Square HGEMM 128..8192: ours (every variant at 2048-8192) and cuBLAS; ours (best) and
    /// cuBLAS in bf16 at 2048-8192
    Square,
    /// LLM projections: ours (best) vs cuBLAS, M = 256..8192 at (N, K) = 4096², 11008x4096,
    /// 4096x11008 and 14336x4096
    Llm,
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
            SweepName::Llm => Sweep::Llm,
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
    /// Least sampling time per case, ms (sweeps' default: 20)
    #[arg(long, allow_negative_numbers = true, value_name = "MS")]
    pub min_time_ms: Option<f64>,
    /// Hard cap on sampling time per case, ms (sweeps' default: 300)
    #[arg(long, allow_negative_numbers = true, value_name = "MS")]
    pub max_time_ms: Option<f64>,
    /// Element type of the square and llm sweeps: fp16 (the square sweep adds bf16 pairs at
    /// its large sizes), or bf16 (ours, best, against cuBLAS in bf16 at every shape)
    #[arg(long, default_value = "fp16")]
    pub dtype: String,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(device: usize, a: &SweepArgs) -> Result<()> {
    a.output.validate()?;
    let dtype = Dtype::parse(&a.dtype)?;
    let sweep = a.which.sweep();
    if !sweep.takes(dtype) {
        return Err(usage(format!(
            "--dtype {dtype}: the {} sweep runs in fp16 only (its unfused pairs, GEMVs and \
             elementwise kernels have no {dtype} form); {dtype} runs in the square and llm sweeps",
            sweep.name()
        )));
    }
    let mut opts = SweepOpts {
        quick: a.quick,
        verify: !a.no_verify,
        seed: a.seed,
        dtype,
        ..SweepOpts::default()
    };
    if let Some(ms) = a.min_time_ms {
        opts.stop.min_time_ms = ms;
    }
    if let Some(ms) = a.max_time_ms {
        opts.stop.max_time_ms = ms;
    }
    opts.stop.validate().map_err(crate::error::usage)?;
    let plan = sweeps::plan(a.which.sweep(), &opts);
    let mut s = open_session(device)?;
    sweeps::check_fits(&s.gpu, &plan)?;
    s.verbose = true;
    sweeps::run(&mut s, plan, opts.verify, a.which.sweep().name())?;
    emit(&s.results(), &a.output)?;
    finish(&s)
}
