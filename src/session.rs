//! A measuring session: the GPU, the ceilings used for placement, and the records so far.
//! This is the API kernel families plug into: hand it a BenchCase, get back a Record that
//! was verified, timed and placed on the roofline.

use crate::datasheet::{self, Datasheet};
use crate::gpu::{DeviceProps, Gpu};
use crate::measure::timesplit::{self, Part};
use crate::measure::{self, BenchCase, MeasureConfig, Verification};
use crate::results::schema::{Record, ResultsFile, RunInfo};
use crate::roofline::{place, MeasuredCeilings};
use anyhow::Result;
use std::sync::atomic::{AtomicBool, Ordering};

/// Mixed into a case's seed for the inputs of the check after timing.
const FRESH_INPUTS: u64 = 0x9E37_79B9_7F4A_7C15;

/// Set by the Ctrl-C handler; long runs check it between cases.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Set by the hidden --debug-inject-fault flag.
pub static INJECT_FAULT: AtomicBool = AtomicBool::new(false);

pub struct Session {
    pub gpu: Gpu,
    pub ceilings: MeasuredCeilings,
    pub datasheet: Datasheet,
    pub records: Vec<Record>,
    /// Print one line per measured case to stderr.
    pub verbose: bool,
    /// When set, case lines go through the progress bar so they don't tear it.
    pub progress: Option<indicatif::ProgressBar>,
    /// Debug: fault on purpose in the first measured case (tests the fault path).
    pub inject_fault: bool,
    /// Sweeps time one case in several modes with the same seeded inputs: its verification
    /// is done once and reused (keyed by the case's description).
    pub reuse_verifications: bool,
    verified: std::collections::HashMap<String, Verification>,
}

impl Session {
    pub fn new(gpu: Gpu, ceilings: MeasuredCeilings) -> Self {
        let datasheet = datasheet::for_device(gpu.props());
        Session {
            gpu,
            ceilings,
            datasheet,
            records: Vec::new(),
            verbose: true,
            progress: None,
            inject_fault: INJECT_FAULT.load(Ordering::Relaxed),
            reuse_verifications: false,
            verified: std::collections::HashMap::new(),
        }
    }

    pub fn is_interrupted(&self) -> bool {
        INTERRUPTED.load(Ordering::Relaxed)
    }

    pub fn run_info(&self) -> RunInfo {
        run_info(self.gpu.props(), &self.ceilings, &self.datasheet)
    }

    pub fn results(&self) -> ResultsFile {
        ResultsFile {
            run: self.run_info(),
            records: self.records.clone(),
        }
    }

    /// Verifies (unless `verify` is false), measures and places one case, keeps the
    /// record and returns it. A failed verification is recorded (verified = false), not
    /// hidden; the caller decides the exit code.
    pub fn run(
        &mut self,
        case: &mut dyn BenchCase,
        experiment: &str,
        cfg: &MeasureConfig,
        verify: bool,
    ) -> Result<Record> {
        let mut records = self.run_group(&mut [case], experiment, cfg, verify)?;
        Ok(records.pop().expect("one record per case"))
    }

    /// `run` for cases compared with each other: each is verified, then all are timed
    /// interleaved (measure::measure_group), so their ratios are not skewed by drift.
    pub fn run_group(
        &mut self,
        cases: &mut [&mut dyn BenchCase],
        experiment: &str,
        cfg: &MeasureConfig,
        verify: bool,
    ) -> Result<Vec<Record>> {
        let mut verifications = Vec::with_capacity(cases.len());
        for case in cases.iter_mut() {
            let id = case.id();
            if self.inject_fault {
                self.gpu
                    .inject_fault(&format!("{} {}", id.kernel, id.impl_), &id.shape.label())?;
            }
            verifications.push(if verify {
                let key = id.describe();
                let v = match self.verified.get(&key) {
                    Some(v) if self.reuse_verifications => v.clone(),
                    _ => timesplit::timed(Part::Verify, || case.verify(&self.gpu))?,
                };
                if !v.passed {
                    eprintln!("FAILED verification: {}: {}", id.describe(), v.detail);
                }
                if self.reuse_verifications {
                    self.verified.insert(key, v.clone());
                }
                Some(v)
            } else {
                None
            });
        }
        let measured = measure::measure_group(&self.gpu, cases, cfg)?;
        // A user's kernel is checked again after its timed launches, on fresh inputs: one
        // that works while verified and then skips work, breaks after N calls, or replays a
        // remembered output fails here.
        for (case, v) in cases.iter_mut().zip(verifications.iter_mut()) {
            if let Some(v) = v.as_mut().filter(|v| v.passed && case.id().impl_ == "user") {
                let recheck = std::time::Instant::now();
                let seed = case.reseed(0);
                case.reseed(seed ^ FRESH_INPUTS);
                case.prepare(&self.gpu, 1)?;
                let again = case.verify(&self.gpu);
                case.reseed(seed);
                let again = again?;
                timesplit::add(Part::Recheck, recheck.elapsed());
                if !again.passed {
                    eprintln!(
                        "FAILED verification after timing: {}: {}",
                        case.id().describe(),
                        again.detail
                    );
                    *v = Verification {
                        detail: format!("after timing: {}", again.detail),
                        ..again
                    };
                }
            }
        }
        let mut records = Vec::with_capacity(cases.len());
        for ((case, m), verification) in cases.iter().zip(measured).zip(verifications) {
            records.push(self.record(&**case, experiment, cfg, &m, verification.as_ref()));
        }
        Ok(records)
    }

    /// Places a measurement on the roofline, prints its line and keeps the record.
    fn record(
        &mut self,
        case: &dyn BenchCase,
        experiment: &str,
        cfg: &MeasureConfig,
        m: &measure::Measurement,
        verification: Option<&Verification>,
    ) -> Record {
        let id = case.id();
        for w in &m.warnings {
            eprintln!("warning: {}: {w}", id.describe());
        }
        let work = case.work();
        let p = place(&work, m.stats.median, &self.ceilings.roofs(cfg.timing));
        let record = Record {
            experiment: experiment.into(),
            kernel: id.kernel.clone(),
            impl_: id.impl_.clone(),
            variant: id.variant.clone(),
            shape: id.shape.clone(),
            dtype: id.dtype.clone(),
            cache: m.cache.as_str().into(),
            timing: m.timing.as_str().into(),
            median_ms: m.stats.median,
            min_ms: m.stats.min,
            p10_ms: m.stats.p10,
            p90_ms: m.stats.p90,
            noise: m.stats.noise,
            samples: m.stats.n as u32,
            flops: work.flops,
            bytes: work.bytes,
            tflops: p.tflops,
            gbs: p.gbs,
            ai: p.ai,
            bound: p.bound.as_str().into(),
            pct_attainable: p.pct_attainable,
            verified: verification.is_some_and(|v| v.passed),
            max_rel_err: verification.map(|v| v.rel_err),
            clocks: m.clocks.clone(),
            status: Some(m.status.as_str().into()),
            clean_samples: Some(m.clean_samples as u32),
            throttled_fraction: Some(m.throttled_fraction),
            counters: Default::default(),
        };
        if self.verbose {
            let line = format!(
                "  {:<44} {:>6} {:>6}  {:>10.4} ms  ±{:>4.1}%  {:>8.1} TFLOP/s {:>8.1} GB/s{}",
                id.describe(),
                record.cache,
                record.timing,
                record.median_ms,
                record.noise * 100.0,
                record.tflops,
                record.gbs,
                match verification {
                    Some(v) if v.passed => "  ok",
                    Some(_) => "  FAILED",
                    None => "",
                }
            );
            // A hidden bar (stderr not a terminal) drops println: write the line directly.
            match &self.progress {
                Some(pb) if !pb.is_hidden() => pb.println(line),
                _ => eprintln!("{line}"),
            }
        }
        self.records.push(record.clone());
        record
    }

    /// Records whose verification ran and failed.
    pub fn failures(&self) -> Vec<&Record> {
        self.records
            .iter()
            .filter(|r| r.max_rel_err.is_some() && !r.verified)
            .collect()
    }
}

pub fn run_info(props: &DeviceProps, ceilings: &MeasuredCeilings, ds: &Datasheet) -> RunInfo {
    RunInfo {
        device: props.name.clone(),
        driver: props
            .driver_release
            .clone()
            .unwrap_or_else(|| DeviceProps::cuda_version_string(props.driver_cuda_version)),
        cuda_runtime: DeviceProps::cuda_version_string(crate::gpu::built_cuda_version()),
        git_commit: crate::GIT_COMMIT.into(),
        date: now_rfc3339(),
        tool_version: crate::VERSION.into(),
        ceilings: ceilings.to_ceilings(ds),
        wall_s: None,
        phases_s: Vec::new(),
    }
}

pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "unknown".into())
}
