//! `roofline probe-case` (hidden): one launch of one case inside a profiler range, for
//! `--counters` to run under Nsight Compute. It takes bench's request arguments and
//! rebuilds the case through the registry exactly as bench does, then:
//!
//! 1. prepares one buffer set;
//! 2. launches once and synchronizes, outside the range: the kernel's module is loaded and
//!    a library does its one-time setup there, not in the profile; hot, this launch also
//!    leaves the data in L2 (ncu runs with `--cache-control none`), cold, ncu flushes the
//!    caches before the profiled kernel (`--cache-control all`);
//! 3. cuProfilerStart, one launch, synchronize, cuProfilerStop.
//!
//! It does not verify: the parent verified the case before timing it.

use super::bench::BenchArgs;
use crate::error::usage;
use crate::gpu::{describe, Gpu};
use crate::measure::BenchCase;
use anyhow::Result;
use clap::Args;

#[derive(Args, Debug)]
pub struct ProbeCaseArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Which of the request's cases to run, 0-based, in bench's order (a user's kernel last)
    #[arg(long, default_value_t = 0)]
    pub case: usize,
    /// Profiled ranges, one launch each (several give ncu's range replay a sample to take
    /// the median of: scripts/crosscheck.py times multi-kernel calls so)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
}

pub fn run(device: usize, a: &ProbeCaseArgs) -> Result<()> {
    let (_, mut cases, user) = a.bench.cases()?;
    let total = cases.len() + usize::from(user.is_some());
    if a.case >= total {
        return Err(usage(format!(
            "--case {}: this request has {total} case(s), numbered from 0",
            a.case
        )));
    }
    let gpu = Gpu::open(device)?;
    if let Some(u) = user {
        cases.push(u.into_case(&gpu)?);
    }
    let hot = a.bench.measure.hot;
    profile_one(&gpu, cases[a.case].as_mut(), hot, a.repeat)
}

fn profile_one(gpu: &Gpu, case: &mut dyn BenchCase, hot: bool, repeat: u32) -> Result<()> {
    let id = case.id();
    let shape = id.shape.label();
    case.prepare(gpu, 1)?;
    case.launch(gpu, 0)?;
    gpu.sync(&id.kernel, &shape)?;
    for _ in 0..repeat {
        // Inside the range a plain stream synchronize: ncu's range replay accepts it (not the
        // event queries of Gpu::sync, which then checks for faults outside the range).
        gpu.profiled(|| {
            case.launch(gpu, 0)?;
            gpu.stream()
                .synchronize()
                .map_err(|e| anyhow::anyhow!("synchronizing {}: {}", id.describe(), describe(&e)))
        })?;
        gpu.sync(&id.kernel, &shape)?;
    }
    eprintln!(
        "probe-case: profiled {repeat} launch(es) of {} ({})",
        id.describe(),
        if hot { "hot" } else { "cold" }
    );
    Ok(())
}
