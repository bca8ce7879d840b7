//! The parent's side of `--counters`: for each measured case, run it once under Nsight
//! Compute (as `probe-case`, a child of this same binary) and attach what the counters
//! measured to its records. A case whose run fails keeps no counters and the pass goes on;
//! without ncu the pass says so in one line and does nothing.

use super::metrics;
use super::ncu::{self, Failure};
use super::parse;
use super::probe::ProbeSpec;
use crate::results::schema::Record;
use crate::results::Counters;
use std::path::PathBuf;

pub struct CounterPass {
    ncu: PathBuf,
    exe: PathBuf,
    device: usize,
    /// The metrics asked for; those ncu does not know on this GPU are dropped on the way.
    metrics: Vec<&'static str>,
    /// Set after a failure no later case can avoid (no permission to read the counters).
    stopped: bool,
}

impl CounterPass {
    /// The pass, or None (having said why in one line) when ncu or this binary's path is
    /// not to be found.
    pub fn new(device: usize) -> Option<Self> {
        let Some(ncu) = ncu::locate() else {
            eprintln!("{}", ncu::NOT_FOUND);
            return None;
        };
        let exe = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("--counters: cannot find this program's own path ({e}); records carry no counters");
                return None;
            }
        };
        Some(Self::with(ncu, exe, device))
    }

    /// A pass with a given ncu and program to profile.
    pub fn with(ncu: PathBuf, exe: PathBuf, device: usize) -> Self {
        CounterPass {
            ncu,
            exe,
            device,
            metrics: metrics::all(),
            stopped: false,
        }
    }

    /// Profiles each spec and attaches its counters to every record it matches (a case timed
    /// in two modes gets them twice). Specs without a matching record are skipped: nothing
    /// was measured to compare with.
    pub fn attach(&mut self, specs: &[ProbeSpec], records: &mut [Record]) {
        for spec in specs {
            if self.stopped
                || crate::session::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
            {
                break;
            }
            if !records.iter().any(|r| spec.matches(r)) {
                continue;
            }
            eprintln!("  counters: {} ...", spec.label());
            match self.profile(spec) {
                Ok(c) => {
                    for r in records.iter_mut().filter(|r| spec.matches(r)) {
                        r.counters = c.clone();
                    }
                }
                Err(f) => {
                    eprintln!(
                        "warning: --counters: {}: {f}; its record carries no counters",
                        spec.label()
                    );
                    if matches!(f, Failure::Permission(_)) {
                        eprintln!("warning: --counters: no further case is profiled");
                        self.stopped = true;
                    }
                }
            }
        }
    }

    /// One case under ncu. Metrics ncu does not know are dropped (said once) and the run
    /// retried, so that one wrong name costs its own field, not every counter.
    fn profile(&mut self, spec: &ProbeSpec) -> Result<Counters, Failure> {
        for _ in 0..2 {
            let args = ncu::args(
                &self.metrics,
                spec.cache,
                &self.exe,
                &spec.child_args(self.device),
            );
            let (stdout, stderr, ok) = ncu::run(&self.ncu, &args, ncu::timeout())?;
            let parsed = parse::parse(&stdout);
            if let (true, Ok(p)) = (ok, &parsed) {
                if p.kernels.is_empty() {
                    return Err(Failure::Other(
                        "ncu profiled no kernel in the probe's range".into(),
                    ));
                }
                return Ok(metrics::counters_from(p));
            }
            match ncu::classify(&stdout, &stderr, &self.metrics) {
                Failure::UnknownMetrics(names) => {
                    eprintln!(
                        "warning: --counters: this ncu does not know {}; collecting without \
                         (the fields that need them stay empty)",
                        names.join(", ")
                    );
                    self.metrics.retain(|m| !names.iter().any(|n| n == m));
                }
                Failure::Other(said) => {
                    // ncu ran to the end but printed no table: the parser says what it saw.
                    let msg = match (&parsed, ok) {
                        (Err(e), true) => format!("{e:#}"),
                        _ => said,
                    };
                    return Err(Failure::Other(msg));
                }
                other => return Err(other),
            }
        }
        Err(Failure::Other("ncu refused the metrics twice".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{CacheMode, CaseId};
    use crate::results::schema::tests::fixture;
    use crate::results::schema::Shape;
    use std::os::unix::fs::PermissionsExt;

    const CSV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ncu_gemv_hot.csv");

    /// A stand-in for ncu: a shell script with this body.
    fn fake_ncu(dir: &std::path::Path, body: &str) -> PathBuf {
        let p = dir.join("ncu");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn spec_and_records() -> (ProbeSpec, Vec<Record>) {
        let shape = Shape::Gemm {
            m: 1,
            n: 4096,
            k: 4096,
        };
        let spec = ProbeSpec {
            request: vec!["gemv".into()],
            case: 0,
            cache: CacheMode::Hot,
            id: CaseId::new("gemv", "ours", "v14", shape.clone()),
        };
        let mut recs = fixture().records;
        recs.truncate(3);
        for (i, r) in recs.iter_mut().enumerate() {
            r.kernel = "gemv".into();
            r.impl_ = "ours".into();
            r.variant = "v14".into();
            r.shape = shape.clone();
            // two timings of the hot case, and the cold one (another case)
            r.cache = if i < 2 { "hot" } else { "cold" }.into();
        }
        (spec, recs)
    }

    #[test]
    fn counters_land_on_every_record_of_the_case_and_only_there() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{CSV}'"));
        let (spec, mut recs) = spec_and_records();
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(std::slice::from_ref(&spec), &mut recs);
        assert_eq!(recs[0].counters.counters_kernels, Some(3));
        assert_eq!(recs[0].counters, recs[1].counters);
        assert!(
            !recs[2].counters.is_present(),
            "the cold record is another case"
        );
    }

    #[test]
    fn an_unknown_metric_is_dropped_and_the_run_retried() {
        let dir = tempfile::tempdir().unwrap();
        let bad = metrics::TENSOR_OPS[1];
        let ncu = fake_ncu(
            dir.path(),
            &format!(
                "case \"$*\" in *{bad}*) echo '==ERROR== Failed to find metric {bad}'; exit 1;; \
                 esac\ncat '{CSV}'"
            ),
        );
        let (spec, mut recs) = spec_and_records();
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(std::slice::from_ref(&spec), &mut recs);
        assert!(!pass.metrics.contains(&bad));
        assert_eq!(pass.metrics.len(), metrics::all().len() - 1);
        assert_eq!(recs[0].counters.counters_kernels, Some(3));
        assert_eq!(
            recs[0].counters.flops_measured, None,
            "a FLOP term is missing"
        );
    }

    #[test]
    fn failures_leave_no_counters_and_no_permission_stops_the_pass() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(
            dir.path(),
            "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission'; exit 1",
        );
        let (spec, mut recs) = spec_and_records();
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(std::slice::from_ref(&spec), &mut recs);
        assert!(pass.stopped);
        assert!(recs.iter().all(|r| !r.counters.is_present()));
        // garbage with exit 0: an error, the records untouched
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), "echo 'something else'");
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let e = pass.profile(&spec).unwrap_err().to_string();
        assert!(e.contains("no CSV table"), "{e}");
        assert!(!pass.stopped);
    }
}
