//! `roofline probe-case` (hidden): cases run inside profiler ranges, for `--counters` to run
//! under Nsight Compute, one process for all the cases of one cache mode. It takes bench's
//! request arguments and rebuilds each case through the registry exactly as bench does;
//! further cases follow `--`, each with its own request (`probe-case A --case 0 -- B --case
//! 1 ...`). Every request is checked before the GPU opens; then, case by case, in order:
//!
//! 1. prepares one buffer set;
//! 2. launches once and synchronizes, outside the range: the kernel's module is loaded and
//!    a library does its one-time setup there, not in the profile; hot, this launch also
//!    leaves the data in L2 (ncu runs with `--cache-control none`), cold, ncu flushes the
//!    caches before the profiled kernel (`--cache-control all`);
//! 3. cuProfilerStart, the marker kernel (`roofline_profiler_marker`, which touches no
//!    memory: the parent splits ncu's rows at it), one launch, synchronize, cuProfilerStop;
//! 4. frees the case's buffers.
//!
//! It does not verify: the parent verified each case before timing it.

use super::bench::BenchArgs;
use crate::counters::probe::CASE_SEPARATOR;
use crate::error::usage;
use crate::gpu::{describe, Gpu};
use crate::measure::BenchCase;
use anyhow::Result;
use clap::{Args, Parser};
use std::ffi::OsString;

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
    /// Further cases to profile in this process, after `--`: each one's own request, cache
    /// mode and --case, separated by `--` (the cache modes must all agree)
    #[arg(last = true, value_name = "CASE")]
    pub more: Vec<OsString>,
}

/// One further case's arguments, parsed as probe-case's own.
#[derive(Parser, Debug)]
#[command(name = "probe-case", no_binary_name = true)]
struct Further {
    #[command(flatten)]
    a: ProbeCaseArgs,
}

/// The cases after `--`, split at each further `--`.
fn further(more: &[OsString]) -> Result<Vec<ProbeCaseArgs>> {
    more.split(|a| a == CASE_SEPARATOR)
        .map(|args| {
            if args.is_empty() {
                return Err(usage("probe-case: an empty case between two `--`"));
            }
            Further::try_parse_from(args).map(|f| f.a).map_err(|e| {
                let said = e.to_string();
                let first = said
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ");
                usage(format!("probe-case: {}: {first}", join(args)))
            })
        })
        .collect()
}

fn join(args: &[OsString]) -> String {
    args.iter()
        .map(|a| a.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(device: usize, a: &ProbeCaseArgs) -> Result<()> {
    let rest = if a.more.is_empty() {
        Vec::new()
    } else {
        further(&a.more)?
    };
    let all: Vec<&ProbeCaseArgs> = std::iter::once(a).chain(&rest).collect();
    let hot = a.bench.measure.hot;
    if all.iter().any(|c| c.bench.measure.hot != hot) {
        return Err(usage(
            "probe-case: all cases of one run share a cache mode (--hot or --cold)",
        ));
    }
    // Every request is checked before the GPU opens.
    for c in &all {
        let (_, cases, user) = c.bench.cases()?;
        let total = cases.len() + usize::from(user.is_some());
        if c.case >= total {
            return Err(usage(format!(
                "--case {}: this request has {total} case(s), numbered from 0",
                c.case
            )));
        }
    }
    let gpu = Gpu::open(device)?;
    for c in &all {
        let (_, mut cases, user) = c.bench.cases()?;
        if let Some(u) = user {
            cases.push(u.into_case(&gpu)?);
        }
        profile_one(&gpu, cases[c.case].as_mut(), hot, c.repeat)?;
        // The cases (and the prepared one's buffers) are freed before the next request.
    }
    Ok(())
}

fn profile_one(gpu: &Gpu, case: &mut dyn BenchCase, hot: bool, repeat: u32) -> Result<()> {
    let id = case.id();
    let shape = id.shape.label();
    case.prepare(gpu, 1)?;
    case.launch(gpu, 0)?;
    gpu.sync(&id.kernel, &shape)?;
    for r in 0..repeat {
        // Inside the range a plain stream synchronize: ncu's range replay accepts it (not the
        // event queries of Gpu::sync, which then checks for faults outside the range).
        gpu.profiled(|| {
            if r == 0 {
                // Where this case's kernels begin in ncu's rows.
                gpu.profiler_marker()?;
            }
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
