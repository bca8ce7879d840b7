//! Timing a BenchCase: time-based warm-up, then samples until the stopping rule is met.
//!
//! - Kernel timing (the default): each launch waits in the stream behind a blocking kernel
//!   while the host enqueues it between two events, then runs: the events time the kernel
//!   itself, one cold launch at a time, without the host's launch latency (nvbench's method).
//! - Launch timing: CUDA events around one launch per sample (includes the launch latency a
//!   lone kernel pays).
//! - Graph timing: K launches captured in a CUDA graph, events around one replay, divided by
//!   K (throughput of kernels run back to back, launch cost amortised).
//! - Cold L2: launches rotate over enough buffer sets that each set's data has left L2 before
//!   it is used again; hot L2: one set, rerun.
//! - Clocks: NVML is read between samples; samples taken while the GPU was capped (power,
//!   thermal) or more than 3% below its maximum SM clock are kept apart (sampling.rs), the
//!   GPU rests when capped, arithmetic-heavy work samples in bursts with rests (DutyLimit),
//!   and the stopping rule and the statistics use the clean samples, unless `sustained`
//!   asks for every sample.

use super::blocker::Blocker;
use super::case::BenchCase;
use super::clocks::{self, slowdown_names, ClockReader, ThrottleRule};
use super::cold;
use super::l2clean::L2Cleaner;
use super::order::RoundOrder;
use super::sampling::{Readings, SampleLog, SampleStatus};
use super::stats::{summarize, Stats, StopRule};
use super::timesplit::{self, Part};
use crate::error::LabError;
use crate::gpu::{Gpu, Timer};
use crate::results::schema::Clocks;
use anyhow::{Context, Result};
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    Cold,
    Hot,
}

impl CacheMode {
    pub fn as_str(&self) -> &'static str {
        match self {
            CacheMode::Cold => "cold",
            CacheMode::Hot => "hot",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingMode {
    /// One cold launch, its own GPU time (behind a blocking kernel).
    Kernel,
    /// One launch, the host's launch latency included.
    Launch,
    /// Back to back in a CUDA graph.
    Graph,
}

impl TimingMode {
    pub fn as_str(&self) -> &'static str {
        match self {
            TimingMode::Kernel => "kernel",
            TimingMode::Launch => "launch",
            TimingMode::Graph => "graph",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "kernel" => Some(TimingMode::Kernel),
            "launch" => Some(TimingMode::Launch),
            "graph" => Some(TimingMode::Graph),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasureConfig {
    pub cache: CacheMode,
    pub timing: TimingMode,
    pub stop: StopRule,
    /// GPU time spent warming up before the first sample.
    pub warmup_ms: f64,
    /// Target GPU time of one graph replay (sets how many launches a graph holds).
    pub graph_target_ms: f64,
    /// Cold L2: other data touched between two uses of a set, in multiples of L2.
    pub l2_factor: f64,
    /// Keep every sample, capped or not (the steady state under the power cap), and never
    /// rest: the figure is labelled "sustained".
    pub sustained: bool,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        MeasureConfig {
            cache: CacheMode::Cold,
            timing: TimingMode::Kernel,
            stop: StopRule::default(),
            warmup_ms: 25.0,
            graph_target_ms: 2.0,
            l2_factor: cold::DEFAULT_L2_FACTOR,
            sustained: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Measurement {
    /// Statistics of the kept samples (the clean ones unless `status` says otherwise).
    pub stats: Stats,
    /// The kept samples.
    pub samples_ms: Vec<f64>,
    /// Samples judged clean, and the fraction of all samples that were not.
    pub clean_samples: usize,
    pub throttled_fraction: f64,
    pub status: SampleStatus,
    pub cache: CacheMode,
    pub timing: TimingMode,
    /// Buffer sets rotated through (1 when hot).
    pub sets: usize,
    /// False when the set cap kept rotation from covering factor x L2.
    pub fully_cold: bool,
    /// Kernel launches per sample (1, or K in graph timing).
    pub launches_per_sample: usize,
    /// The clocks of the kept samples.
    pub clocks: Option<Clocks>,
    pub warnings: Vec<String>,
}

/// How many buffer sets a measurement of this case will allocate.
pub fn sets_for(cfg: &MeasureConfig, set_bytes: u64, l2_bytes: u64) -> usize {
    match cfg.cache {
        CacheMode::Hot => 1,
        CacheMode::Cold => cold::cold_sets(set_bytes, l2_bytes, cfg.l2_factor),
    }
}

/// Launches one graph replay holds: about `target_ms` of work, a whole number of rotations.
pub fn graph_launches(per_launch_ms: f64, target_ms: f64, sets: usize) -> usize {
    const MAX_NODES: usize = 2000;
    let want = (target_ms / per_launch_ms.max(1e-6)).round() as usize;
    let k = want.clamp(4, MAX_NODES).max(sets.min(MAX_NODES));
    if sets > 1 && k >= sets {
        k.div_ceil(sets) * sets
    } else {
        k
    }
}

pub fn measure(gpu: &Gpu, case: &mut dyn BenchCase, cfg: &MeasureConfig) -> Result<Measurement> {
    let mut group = measure_group(gpu, &mut [case], cfg)?;
    Ok(group.pop().expect("one measurement per case"))
}

/// Times several cases interleaved: each round takes one sample of every case, so that slow
/// drifts of the GPU (clocks, power cap, temperature) reach all of them alike and their ratios
/// stay honest; the order within a round is drawn afresh each round (RoundOrder), so that no
/// case always follows the same kernel. Rounds go on until every case's stopping rule is met
/// (its time budget counted per case). All cases' buffer sets are allocated at once. Hot L2
/// cannot be interleaved (the other cases would evict a case's data between its samples): a
/// hot group is an error.
pub fn measure_group(
    gpu: &Gpu,
    cases: &mut [&mut dyn BenchCase],
    cfg: &MeasureConfig,
) -> Result<Vec<Measurement>> {
    if cfg.cache == CacheMode::Hot && cases.len() > 1 {
        return Err(LabError::Usage(
            "hot-L2 timing cannot be interleaved: time the cases one by one".into(),
        )
        .into());
    }
    let l2 = gpu.props().l2_bytes;
    let mut sets = Vec::with_capacity(cases.len());
    for case in cases.iter_mut() {
        sets.push(timesplit::timed(Part::Prepare, || {
            prepare(gpu, &mut **case, cfg, l2)
        })?);
    }
    let setup = Instant::now();
    let reader = ClockReader::new(gpu.context().uuid().map(|u| u.bytes.map(|b| b as u8))?);
    let rule = reader
        .max_sm_mhz()
        .filter(|&m| m > 0)
        .map(ThrottleRule::new);
    let mut readings = Readings::new(rule);
    let judge = !cfg.sustained && readings.judged();
    let timer = gpu.timer()?;

    // One scratch for the whole group: cold kernel-timed samples start from a clean L2.
    let cleaner = match (cfg.timing, cfg.cache) {
        (TimingMode::Kernel, CacheMode::Cold) => Some(L2Cleaner::new(gpu)?),
        _ => None,
    };
    let mut samplers = Vec::with_capacity(cases.len());
    let mut warming = Duration::ZERO;
    for (case, &n_sets) in cases.iter().zip(&sets) {
        let t = Instant::now();
        let per_launch_ms = warm_up(gpu, &timer, &**case, n_sets, cfg)?;
        warming += t.elapsed();
        samplers.push(Sampler::new(gpu, &**case, cfg, per_launch_ms, n_sets)?);
    }
    if let Some(r) = reader.quick_sample() {
        readings.restart(r);
    }
    timesplit::add(Part::WarmUp, warming);
    timesplit::add(Part::Setup, setup.elapsed().saturating_sub(warming));

    let mut logs: Vec<SampleLog> = vec![SampleLog::default(); cases.len()];
    let mut dropped = 0usize;
    let started = Instant::now();
    let mut rested = Duration::ZERO;
    // Of `rested`: the duty limit's rests (the rest are the throttle rule's).
    let mut duty_rested = Duration::ZERO;
    // The time budget counts sampling, not rests; a hard cap on the whole keeps a GPU that
    // never leaves its cap from stalling a sweep.
    let per_case_ms =
        |rested: Duration| (started.elapsed() - rested).as_secs_f64() * 1e3 / cases.len() as f64;
    let wall_cap = Duration::from_secs_f64(3.0 * cfg.stop.max_time_ms * cases.len() as f64 / 1e3);
    let mut last_read = Instant::now();
    let mut round = 0usize;
    let mut order = RoundOrder::new(cases.len());
    let duty = DutyLimit::from_env();
    // Only arithmetic-heavy work draws the power that slows the clock unseen; memory-bound
    // kernels are timed back to back (their figures agree with Nsight Compute's without it).
    let power_heavy = cases.iter().any(|c| {
        let w = c.work();
        w.bytes > 0.0 && w.flops / w.bytes >= DutyLimit::MIN_INTENSITY
    });
    let mut busy_ms = 0.0f64;
    loop {
        for &i in order.next_round() {
            match samplers[i].sample(gpu, &timer, &*cases[i], round, cleaner.as_ref())? {
                Some(t) => {
                    logs[i].push(t);
                    busy_ms += t * samplers[i].launches_per_sample() as f64;
                }
                None => dropped += 1,
            }
        }
        round += 1;
        if judge && power_heavy && busy_ms >= duty.burst_ms {
            let pause = Duration::from_secs_f64(busy_ms * duty.rest_factor / 1e3);
            std::thread::sleep(pause);
            rested += pause;
            duty_rested += pause;
            busy_ms = 0.0;
        }
        if last_read.elapsed() >= READ_EVERY {
            last_read = Instant::now();
            if let Some(r) = reader.quick_sample() {
                let (before, after) = readings.add(r);
                logs.iter_mut().for_each(|l| l.settle(before, after));
                if judge && readings.should_rest(&r) && started.elapsed() < wall_cap {
                    rested += rest(gpu, &reader, &mut readings, cases, &sets)?;
                    last_read = Instant::now();
                }
            }
        }
        let elapsed = per_case_ms(rested);
        let done = logs.iter().all(|l| {
            let kept = if judge {
                l.clean_times()
            } else {
                l.times.clone()
            };
            cfg.stop.should_stop(&kept, elapsed)
        });
        if done || started.elapsed() >= wall_cap {
            break;
        }
    }
    timesplit::add(Part::Sampling, started.elapsed().saturating_sub(rested));
    timesplit::add(Part::DutyRests, duty_rested);
    timesplit::add(Part::ThrottleRests, rested.saturating_sub(duty_rested));
    for (log, sampler) in logs.iter().zip(&samplers) {
        let launches = sampler.launches_per_sample() as f64;
        timesplit::add_samples(
            log.times.len() as u64,
            log.times.iter().sum::<f64>() * launches,
        );
    }
    let finish = Instant::now();
    if let Some(r) = reader.quick_sample() {
        let (before, after) = readings.add(r);
        logs.iter_mut().for_each(|l| l.settle(before, after));
    }
    let full: Vec<_> = reader.sample().into_iter().collect();
    let all_clocks = clocks::summarize(&[readings.all.clone(), full].concat());

    let mut out = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let set_bytes = case.set_bytes();
        let fully_cold = cfg.cache == CacheMode::Hot
            || cold::is_fully_cold(sets[i], set_bytes, l2, cfg.l2_factor);
        let (kept, status) = logs[i].kept(cfg.sustained, readings.judged(), cfg.stop.min_samples);
        let kept_clocks = match status {
            SampleStatus::Clean => clocks::summarize(&readings.clean).or(all_clocks.clone()),
            _ => all_clocks.clone(),
        };
        let mut warnings = Vec::new();
        match status {
            SampleStatus::Throttled => warnings.push(format!(
                "only {} of {} samples were taken unthrottled within the time cap: the figure \
                 includes throttled samples{}",
                logs[i].clean_times().len(),
                logs[i].times.len(),
                all_clocks
                    .as_ref()
                    .and_then(clocks::warning)
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default()
            )),
            SampleStatus::Sustained | SampleStatus::Unjudged => {
                warnings.extend(all_clocks.as_ref().and_then(clocks::warning))
            }
            SampleStatus::Clean => {}
        }
        if !fully_cold {
            warnings.push(format!(
                "only {} buffer sets fit the rotation cap: some L2 reuse remains in 'cold'",
                sets[i]
            ));
        }
        if dropped > 0 {
            warnings.push(format!(
                "{dropped} sample(s) dropped: the blocking kernel timed out before the host \
                 enqueued the launch"
            ));
        }
        out.push(Measurement {
            stats: summarize(&kept),
            clean_samples: logs[i].clean_times().len(),
            throttled_fraction: logs[i].throttled_fraction(),
            status,
            samples_ms: kept,
            cache: cfg.cache,
            timing: cfg.timing,
            sets: sets[i],
            fully_cold,
            launches_per_sample: samplers[i].launches_per_sample(),
            clocks: kept_clocks,
            warnings,
        });
    }
    timesplit::add(Part::Setup, finish.elapsed());
    Ok(out)
}

/// How much of the time the GPU may work while a measurement samples. Sustained matrix work
/// slows the H200 within tens of milliseconds, before NVML's clock reading shows it: cuBLAS
/// 4096^3 sampled back to back measured 191-203 µs at a reported 1980 MHz, and 180 µs in
/// short bursts from a rested GPU (PyTorch's rested do_bench: 183; Nsight Compute: 184).
/// So after each burst of `burst_ms` of GPU time the GPU idles `rest_factor` times as long
/// (not counted in the time budget): 10 ms and 2x measured 180.8 µs (none: 183.6, 20:1:
/// 181.9). It applies to work of MIN_INTENSITY FLOP/byte or more. ROOFLINE_DUTY=
/// BURST_MS:REST_FACTOR overrides it, for measuring the rule itself.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DutyLimit {
    burst_ms: f64,
    rest_factor: f64,
}

impl DutyLimit {
    const DEFAULT: DutyLimit = DutyLimit {
        burst_ms: 10.0,
        rest_factor: 2.0,
    };
    const MIN_INTENSITY: f64 = 16.0;

    fn from_env() -> Self {
        Self::parse(std::env::var("ROOFLINE_DUTY").ok().as_deref())
    }

    /// "BURST_MS:REST_FACTOR", or the default when absent or malformed.
    fn parse(v: Option<&str>) -> Self {
        v.and_then(|v| {
            let (b, f) = v.split_once(':')?;
            Some(DutyLimit {
                burst_ms: b.trim().parse().ok()?,
                rest_factor: f.trim().parse().ok()?,
            })
        })
        .filter(|d| d.burst_ms > 0.0 && d.rest_factor >= 0.0)
        .unwrap_or(Self::DEFAULT)
    }
}

/// Clocks are read between rounds at most this often: the power cap moves on a scale of
/// tens of milliseconds, and a reading costs tens of microseconds of host time.
const READ_EVERY: Duration = Duration::from_millis(1);

/// The GPU was capped: let it idle until the slowdown clears (at least REST_MIN, at most
/// REST_MAX), then run the cases for REWARM so the clocks are back up from idle before
/// sampling goes on. Returns the time spent.
fn rest(
    gpu: &Gpu,
    reader: &ClockReader,
    readings: &mut Readings,
    cases: &[&mut dyn BenchCase],
    sets: &[usize],
) -> Result<Duration> {
    const REST_MIN: Duration = Duration::from_millis(50);
    const REST_MAX: Duration = Duration::from_millis(1000);
    const REWARM: Duration = Duration::from_millis(10);
    let t0 = Instant::now();
    std::thread::sleep(REST_MIN);
    while t0.elapsed() < REST_MAX {
        // Idle clocks are low by design: only the slowdown reasons say the cap is still on.
        match reader.quick_sample() {
            Some(r) if !slowdown_names(r.reasons).is_empty() => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ => break,
        }
    }
    let warm = Instant::now();
    let mut i = 0usize;
    while warm.elapsed() < REWARM && i < 10_000 {
        for (case, &n) in cases.iter().zip(sets) {
            case.launch(gpu, i % n)?;
        }
        for case in cases {
            sync_case(gpu, &**case)?;
        }
        i += 1;
    }
    if let Some(r) = reader.quick_sample() {
        readings.restart(r);
    }
    Ok(t0.elapsed())
}

/// Checks the case's buffer sets fit in free memory, then allocates them; returns the count.
fn prepare(gpu: &Gpu, case: &mut dyn BenchCase, cfg: &MeasureConfig, l2: u64) -> Result<usize> {
    let id = case.id();
    let set_bytes = case.set_bytes();
    let sets = sets_for(cfg, set_bytes, l2);
    let (free, _) = gpu.mem_info()?;
    let need = sets as u64 * set_bytes;
    if need as f64 > 0.9 * free as f64 {
        return Err(LabError::OutOfMemory(format!(
            "{} needs {} buffer set(s) of {:.1} MiB = {:.1} GiB but {:.1} GiB is free; use a \
             smaller size{}",
            id.describe(),
            sets,
            set_bytes as f64 / (1 << 20) as f64,
            need as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64,
            if cfg.cache == CacheMode::Cold {
                " or --hot"
            } else {
                ""
            }
        ))
        .into());
    }
    case.prepare(gpu, sets)
        .with_context(|| format!("preparing {}", id.describe()))?;
    sync_case(gpu, case)?;
    Ok(sets)
}

fn sync_case(gpu: &Gpu, case: &dyn BenchCase) -> Result<()> {
    let id = case.id();
    gpu.sync(&format!("{} {}", id.kernel, id.impl_), &id.shape.label())
}

/// Warm-up by GPU time, in doubling batches; returns the mean time per launch it saw.
fn warm_up(
    gpu: &Gpu,
    timer: &Timer,
    case: &dyn BenchCase,
    sets: usize,
    cfg: &MeasureConfig,
) -> Result<f64> {
    let (mut launched, mut warm_ms, mut batch) = (0usize, 0.0f64, 1usize);
    while warm_ms < cfg.warmup_ms || launched < 3 {
        timer.start(gpu)?;
        for i in 0..batch {
            case.launch(gpu, (launched + i) % sets)?;
        }
        timer.stop(gpu)?;
        sync_case(gpu, case)?;
        warm_ms += timer.elapsed_ms()?;
        launched += batch;
        batch = (batch * 2).min(1024);
    }
    Ok(warm_ms / launched as f64)
}

/// How one sample of a case is taken: events around one launch, or around one replay of a
/// graph of K launches (divided by K).
enum Sampler {
    Kernel {
        sets: usize,
        blocker: Blocker,
    },
    Launch {
        sets: usize,
    },
    Graph {
        graph: cudarc::driver::CudaGraph,
        k: usize,
    },
}

impl Sampler {
    fn new(
        gpu: &Gpu,
        case: &dyn BenchCase,
        cfg: &MeasureConfig,
        per_launch_ms: f64,
        sets: usize,
    ) -> Result<Self> {
        match cfg.timing {
            TimingMode::Kernel => Ok(Sampler::Kernel {
                sets,
                blocker: Blocker::new()?,
            }),
            TimingMode::Launch => Ok(Sampler::Launch { sets }),
            TimingMode::Graph => {
                let k = graph_launches(per_launch_ms, cfg.graph_target_ms, sets);
                let graph = capture(gpu, case, k, sets).with_context(|| {
                    format!("capturing {} launches of {}", k, case.id().describe())
                })?;
                graph.upload()?;
                graph.launch()?;
                sync_case(gpu, case)?;
                Ok(Sampler::Graph { graph, k })
            }
        }
    }

    /// Sample number `n` (single launches rotate the buffer sets with it), in ms per launch;
    /// None when the blocking kernel gave up before the launch was enqueued. `cleaner`
    /// (cold kernel timing) leaves L2 clean before the sample.
    fn sample(
        &self,
        gpu: &Gpu,
        timer: &Timer,
        case: &dyn BenchCase,
        n: usize,
        cleaner: Option<&L2Cleaner>,
    ) -> Result<Option<f64>> {
        match self {
            Sampler::Kernel { sets, blocker } => {
                if let Some(c) = cleaner {
                    c.clean(gpu)?;
                }
                blocker.block(gpu)?;
                let enqueued = timer
                    .start(gpu)
                    .and_then(|_| case.launch(gpu, n % sets))
                    .and_then(|_| timer.stop(gpu));
                blocker.release();
                enqueued?;
                sync_case(gpu, case)?;
                if blocker.timed_out() {
                    return Ok(None);
                }
            }
            Sampler::Launch { sets } => {
                timer.start(gpu)?;
                case.launch(gpu, n % sets)?;
                timer.stop(gpu)?;
                sync_case(gpu, case)?;
            }
            Sampler::Graph { graph, .. } => {
                timer.start(gpu)?;
                graph.launch()?;
                timer.stop(gpu)?;
                sync_case(gpu, case)?;
            }
        }
        Ok(Some(
            timer.elapsed_ms()? / self.launches_per_sample() as f64,
        ))
    }

    fn launches_per_sample(&self) -> usize {
        match self {
            Sampler::Kernel { .. } | Sampler::Launch { .. } => 1,
            Sampler::Graph { k, .. } => *k,
        }
    }
}

/// Captures `k` launches (rotating over the sets) into an instantiated graph. A failed
/// launch ends the capture first, so the stream is usable for the error report.
fn capture(
    gpu: &Gpu,
    case: &dyn BenchCase,
    k: usize,
    sets: usize,
) -> Result<cudarc::driver::CudaGraph> {
    let stream = gpu.stream();
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    for i in 0..k {
        if let Err(e) = case.launch(gpu, i % sets) {
            let _ = stream.end_capture(CUgraphInstantiate_flags(0));
            return Err(e);
        }
    }
    stream
        .end_capture(CUgraphInstantiate_flags(0))?
        .context("stream capture produced no graph")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_size_targets_time_and_whole_rotations() {
        // 10 us kernels, 2 ms target -> 200 launches; 7 sets -> rounded up to 203
        assert_eq!(graph_launches(0.01, 2.0, 1), 200);
        assert_eq!(graph_launches(0.01, 2.0, 7), 203);
        // slow kernels still get a few launches
        assert_eq!(graph_launches(50.0, 2.0, 1), 4);
        // tiny kernels are capped
        assert_eq!(graph_launches(1e-5, 2.0, 1), 2000);
        // many sets: at least one use of each
        assert_eq!(graph_launches(50.0, 2.0, 300), 300);
    }

    #[test]
    fn the_duty_limit_parses_or_falls_back() {
        assert_eq!(DutyLimit::parse(None), DutyLimit::DEFAULT);
        let d = DutyLimit::parse(Some("5:4"));
        assert_eq!((d.burst_ms, d.rest_factor), (5.0, 4.0));
        for bad in ["", "5", "x:1", "0:1", "5:-1"] {
            assert_eq!(DutyLimit::parse(Some(bad)), DutyLimit::DEFAULT, "{bad}");
        }
    }

    #[test]
    fn hot_uses_one_set() {
        let cfg = MeasureConfig {
            cache: CacheMode::Hot,
            ..Default::default()
        };
        assert_eq!(sets_for(&cfg, 1 << 20, 60 << 20), 1);
        let cold = MeasureConfig::default();
        assert_eq!(sets_for(&cold, 32 << 20, 60 << 20), 7);
    }
}
