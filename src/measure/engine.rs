//! Timing a BenchCase: time-based warm-up, then samples until the stopping rule is met.
//!
//! - Launch timing: CUDA events around one launch per sample (includes the launch latency a
//!   lone kernel pays).
//! - Graph timing: K launches captured in a CUDA graph, events around one replay, divided by
//!   K (throughput of kernels run back to back, launch cost amortised).
//! - Cold L2: launches rotate over enough buffer sets that each set's data has left L2 before
//!   it is used again; hot L2: one set, rerun.

use super::case::BenchCase;
use super::clocks::{self, ClockReader, ClockSample};
use super::cold;
use super::order::RoundOrder;
use super::stats::{summarize, Stats, StopRule};
use crate::error::LabError;
use crate::gpu::{Gpu, Timer};
use crate::results::schema::Clocks;
use anyhow::{Context, Result};
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use serde::{Deserialize, Serialize};
use std::time::Instant;

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
    Launch,
    Graph,
}

impl TimingMode {
    pub fn as_str(&self) -> &'static str {
        match self {
            TimingMode::Launch => "launch",
            TimingMode::Graph => "graph",
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
}

impl Default for MeasureConfig {
    fn default() -> Self {
        MeasureConfig {
            cache: CacheMode::Cold,
            timing: TimingMode::Launch,
            stop: StopRule::default(),
            warmup_ms: 25.0,
            graph_target_ms: 2.0,
            l2_factor: cold::DEFAULT_L2_FACTOR,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Measurement {
    pub stats: Stats,
    pub samples_ms: Vec<f64>,
    pub cache: CacheMode,
    pub timing: TimingMode,
    /// Buffer sets rotated through (1 when hot).
    pub sets: usize,
    /// False when the set cap kept rotation from covering factor x L2.
    pub fully_cold: bool,
    /// Kernel launches per sample (1, or K in graph timing).
    pub launches_per_sample: usize,
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
        sets.push(prepare(gpu, &mut **case, cfg, l2)?);
    }
    let reader = ClockReader::new(gpu.context().uuid().map(|u| u.bytes.map(|b| b as u8))?);
    let mut clock_samples: Vec<ClockSample> = Vec::new();
    let timer = gpu.timer()?;

    let mut samplers = Vec::with_capacity(cases.len());
    for (case, &n_sets) in cases.iter().zip(&sets) {
        let per_launch_ms = warm_up(gpu, &timer, &**case, n_sets, cfg)?;
        samplers.push(Sampler::new(gpu, &**case, cfg, per_launch_ms, n_sets)?);
    }
    clock_samples.extend(reader.sample());

    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let started = Instant::now();
    let per_case_ms = || started.elapsed().as_secs_f64() * 1e3 / cases.len() as f64;
    let mut round = 0usize;
    let mut order = RoundOrder::new(cases.len());
    loop {
        for &i in order.next_round() {
            samples[i].push(samplers[i].sample(gpu, &timer, &*cases[i], round)?);
        }
        round += 1;
        if round.is_multiple_of(samplers[0].rounds_per_clock_read()) {
            clock_samples.extend(reader.sample());
        }
        if samples
            .iter()
            .all(|s| cfg.stop.should_stop(s, per_case_ms()))
        {
            break;
        }
    }
    clock_samples.extend(reader.sample());
    let clocks = clocks::summarize(&clock_samples);
    let clock_warning: Option<String> = clocks.as_ref().and_then(clocks::warning);

    let mut out = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let set_bytes = case.set_bytes();
        let fully_cold = cfg.cache == CacheMode::Hot
            || cold::is_fully_cold(sets[i], set_bytes, l2, cfg.l2_factor);
        let mut warnings: Vec<String> = clock_warning.iter().cloned().collect();
        if !fully_cold {
            warnings.push(format!(
                "only {} buffer sets fit the rotation cap: some L2 reuse remains in 'cold'",
                sets[i]
            ));
        }
        let s = std::mem::take(&mut samples[i]);
        out.push(Measurement {
            stats: summarize(&s),
            samples_ms: s,
            cache: cfg.cache,
            timing: cfg.timing,
            sets: sets[i],
            fully_cold,
            launches_per_sample: samplers[i].launches_per_sample(),
            clocks: clocks.clone(),
            warnings,
        });
    }
    Ok(out)
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

    /// Sample number `n` (launch timing rotates the buffer sets with it), in ms per launch.
    fn sample(&self, gpu: &Gpu, timer: &Timer, case: &dyn BenchCase, n: usize) -> Result<f64> {
        timer.start(gpu)?;
        match self {
            Sampler::Launch { sets } => case.launch(gpu, n % sets)?,
            Sampler::Graph { graph, .. } => graph.launch()?,
        }
        timer.stop(gpu)?;
        sync_case(gpu, case)?;
        Ok(timer.elapsed_ms()? / self.launches_per_sample() as f64)
    }

    fn launches_per_sample(&self) -> usize {
        match self {
            Sampler::Launch { .. } => 1,
            Sampler::Graph { k, .. } => *k,
        }
    }

    /// Clocks are read every 16 single launches or every 4 graph replays.
    fn rounds_per_clock_read(&self) -> usize {
        match self {
            Sampler::Launch { .. } => 16,
            Sampler::Graph { .. } => 4,
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
