//! The parent's side of `--counters`: run the measured cases under Nsight Compute (as
//! `probe-case`, a child of this same binary) and attach what the counters measured to their
//! records. One ncu process profiles every case of one cache mode (ncu's cache flags are per
//! process): starting ncu, the child, its CUDA context and the libraries costs seconds, the
//! profiled launches themselves little. The child opens each case's range with a marker
//! kernel, and the rows are split there (`parse::split_at_markers`), so each case gets
//! exactly its own kernels. A case whose rows are missing keeps no counters and the pass
//! says so and goes on; without ncu the pass says so in one line and does nothing.

use super::metrics;
use super::ncu::{self, Failure};
use super::parse::{self, Profile};
use super::probe::ProbeSpec;
use crate::gpu::PROFILER_MARKER;
use crate::measure::CacheMode;
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

/// Each case's counters from one ncu run, or why it has none.
type CaseResults = Vec<Result<Counters, String>>;

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

    /// Profiles the specs, one ncu run per cache mode (in the order the modes first appear,
    /// the cases of a mode in the given order), and attaches each case's counters to every
    /// record it matches (a case timed in two modes gets them twice). Specs without a
    /// matching record are skipped: nothing was measured to compare with.
    pub fn attach(&mut self, specs: &[ProbeSpec], records: &mut [Record]) {
        let wanted: Vec<&ProbeSpec> = specs
            .iter()
            .filter(|s| records.iter().any(|r| s.matches(r)))
            .collect();
        let mut modes: Vec<CacheMode> = Vec::new();
        for s in &wanted {
            if !modes.contains(&s.cache) {
                modes.push(s.cache);
            }
        }
        for mode in modes {
            if self.stopped
                || crate::session::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
            {
                break;
            }
            let batch: Vec<&ProbeSpec> =
                wanted.iter().copied().filter(|s| s.cache == mode).collect();
            eprintln!(
                "  counters: {} {} case(s) in one ncu run: {} ...",
                batch.len(),
                mode.as_str(),
                batch
                    .iter()
                    .map(|s| s.id.describe())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            match self.profile_batch(&batch) {
                Ok(results) => {
                    for (spec, result) in batch.iter().zip(results) {
                        match result {
                            Ok(c) => {
                                for r in records.iter_mut().filter(|r| spec.matches(r)) {
                                    r.counters = c.clone();
                                }
                            }
                            Err(why) => eprintln!(
                                "warning: --counters: {}: {why}; its record carries no counters",
                                spec.label()
                            ),
                        }
                    }
                }
                Err(f) => {
                    eprintln!(
                        "warning: --counters: the ncu run of {} {} case(s) failed: {f}; their \
                         records carry no counters",
                        batch.len(),
                        mode.as_str()
                    );
                    if matches!(f, Failure::Permission(_)) {
                        eprintln!("warning: --counters: no further case is profiled");
                        self.stopped = true;
                    }
                }
            }
        }
    }

    /// The cases of one cache mode under one ncu process. Metrics ncu does not know are
    /// dropped (said once) and the run retried, so that one wrong name costs its own field,
    /// not every counter. Err: the run gave no case anything (the failure is the whole
    /// batch's); Ok: each case's counters or why it has none.
    fn profile_batch(&mut self, batch: &[&ProbeSpec]) -> Result<CaseResults, Failure> {
        let Some(first) = batch.first() else {
            return Ok(Vec::new());
        };
        let child = ProbeSpec::batch_args(batch, self.device);
        let limit = ncu::batch_timeout(ncu::timeout(), batch.len());
        for _ in 0..2 {
            let args = ncu::args(&self.metrics, first.cache, &self.exe, &child);
            let (stdout, stderr, ok) = ncu::run(&self.ncu, &args, limit)?;
            let parsed = parse::parse(&stdout);
            if ok {
                return match parsed {
                    Ok(p) => Ok(per_case(&p, batch.len(), None)),
                    // ncu ran to the end but printed no table: the parser says what it saw.
                    Err(e) => Err(Failure::Other(format!("{e:#}"))),
                };
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
                    // The probe stopped part-way: the cases it finished keep their counters.
                    if let Ok(p) = &parsed {
                        let results = per_case(p, batch.len(), Some(&said));
                        if results.iter().any(Result::is_ok) {
                            return Ok(results);
                        }
                    }
                    return Err(Failure::Other(said));
                }
                other => return Err(other),
            }
        }
        Err(Failure::Other("ncu refused the metrics twice".into()))
    }
}

/// Each of `n` cases' counters from one run's profile, split at the marker kernels. When the
/// run ended well (`failed` None) and shows one marker per case, every case has its rows; a
/// case's rows are otherwise known complete only when the next case's marker follows them
/// (the child profiles the cases in order), and the later cases get `failed` (or what the
/// rows lack) as the reason they have none.
fn per_case(p: &Profile, n: usize, failed: Option<&str>) -> CaseResults {
    let split = parse::split_at_markers(p, PROFILER_MARKER);
    let markers = split.cases.len();
    if markers > n {
        let why = format!(
            "ncu's rows hold {markers} case markers for {n} case(s): they cannot be told apart"
        );
        return vec![Err(why); n];
    }
    let complete = if failed.is_none() && markers == n {
        n
    } else {
        markers.saturating_sub(1)
    };
    let why_not = match failed {
        Some(said) => format!("the probe stopped before this case's rows were complete: {said}"),
        None if p.kernels.is_empty() => "ncu profiled no kernel in the probe's ranges".into(),
        None => format!(
            "ncu's rows hold {markers} case marker(s) for {n} case(s): this case's are missing"
        ),
    };
    (0..n)
        .map(|i| match split.cases.get(i) {
            Some(c) if i < complete && c.kernels.is_empty() => {
                Err("ncu profiled no kernel in this case's range".into())
            }
            Some(c) if i < complete => Ok(metrics::counters_from(c)),
            _ => Err(why_not.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::CaseId;
    use crate::results::schema::tests::fixture;
    use crate::results::schema::Shape;
    use std::os::unix::fs::PermissionsExt;

    const GEMV_HOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ncu_gemv_hot.csv");
    const TWO_CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ncu_two_cases.csv");

    /// A stand-in for ncu: a shell script with this body, which also appends its arguments
    /// to `calls` in its folder.
    fn fake_ncu(dir: &std::path::Path, body: &str) -> PathBuf {
        let p = dir.join("ncu");
        let log = dir.join("calls");
        std::fs::write(
            &p,
            format!("#!/bin/sh\necho \"$*\" >> '{}'\n{body}\n", log.display()),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// The argument lines the fake ncu in `dir` was called with.
    fn calls(dir: &std::path::Path) -> Vec<String> {
        std::fs::read_to_string(dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// The stored single-case H200 output as the probe now gives it: a marker row (the same
    /// columns, empty but for the ID and the name) before the case's kernels. Written to
    /// `dir`; returns the file.
    fn gemv_hot_with_marker(dir: &std::path::Path) -> PathBuf {
        let text = std::fs::read_to_string(GEMV_HOT).unwrap();
        let mut out = String::new();
        let mut csv_rows = 0;
        for line in text.lines() {
            out += line;
            out.push('\n');
            if line.starts_with('"') {
                csv_rows += 1;
                if csv_rows == 2 {
                    // after the units row
                    let cells = line.split("\",\"").count();
                    let mut marker = vec![String::new(); cells];
                    marker[0] = "9".into();
                    marker[4] = PROFILER_MARKER.into();
                    out += &format!("\"{}\"\n", marker.join("\",\""));
                }
            }
        }
        let p = dir.join("gemv_hot_marked.csv");
        std::fs::write(&p, out).unwrap();
        p
    }

    fn gemv_shape() -> Shape {
        Shape::Gemm {
            m: 1,
            n: 4096,
            k: 4096,
        }
    }

    fn spec(kernel: &str, impl_: &str, shape: Shape, cache: CacheMode) -> ProbeSpec {
        ProbeSpec {
            request: vec![kernel.into()],
            case: 0,
            cache,
            id: CaseId::new(
                kernel,
                impl_,
                if impl_ == "ours" { "v14" } else { "" },
                shape,
            ),
        }
    }

    /// Records for `specs`: one per spec, and a second record of the first spec's case.
    fn records_for(specs: &[&ProbeSpec]) -> Vec<Record> {
        let template = fixture().records[0].clone();
        let mut out = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            for _ in 0..if i == 0 { 2 } else { 1 } {
                let mut r = template.clone();
                r.kernel = s.id.kernel.clone();
                r.impl_ = s.id.impl_.clone();
                r.variant = s.id.variant.clone();
                r.shape = s.id.shape.clone();
                r.cache = s.cache.as_str().into();
                r.counters = Counters::default();
                out.push(r);
            }
        }
        out
    }

    fn spec_and_records() -> (ProbeSpec, Vec<Record>) {
        let spec = spec("gemv", "ours", gemv_shape(), CacheMode::Hot);
        let mut recs = records_for(&[&spec]);
        // the cold timing of the same kernel: another case
        let mut cold = recs[0].clone();
        cold.cache = "cold".into();
        recs.push(cold);
        (spec, recs)
    }

    #[test]
    fn counters_land_on_every_record_of_the_case_and_only_there() {
        let dir = tempfile::tempdir().unwrap();
        let csv = gemv_hot_with_marker(dir.path());
        let ncu = fake_ncu(dir.path(), &format!("cat '{}'", csv.display()));
        let (spec, mut recs) = spec_and_records();
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(std::slice::from_ref(&spec), &mut recs);
        assert_eq!(
            recs[0].counters.counters_kernels,
            Some(3),
            "the marker is left out"
        );
        assert_eq!(recs[0].counters, recs[1].counters);
        assert!(
            !recs[2].counters.is_present(),
            "the cold record is another case"
        );
        assert_eq!(calls(dir.path()).len(), 1);
    }

    #[test]
    fn an_unknown_metric_is_dropped_and_the_run_retried() {
        let dir = tempfile::tempdir().unwrap();
        let csv = gemv_hot_with_marker(dir.path());
        let bad = metrics::TENSOR_OPS[1];
        let ncu = fake_ncu(
            dir.path(),
            &format!(
                "case \"$*\" in *{bad}*) echo '==ERROR== Failed to find metric {bad}'; exit 1;; \
                 esac\ncat '{}'",
                csv.display()
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
        assert_eq!(calls(dir.path()).len(), 2, "the run and its retry");
    }

    #[test]
    fn failures_leave_no_counters_and_no_permission_stops_the_pass() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(
            dir.path(),
            "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission'; exit 1",
        );
        let (spec, mut recs) = spec_and_records();
        let cold = ProbeSpec {
            cache: CacheMode::Cold,
            ..spec.clone()
        };
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(&[spec.clone(), cold], &mut recs);
        assert!(pass.stopped);
        assert!(recs.iter().all(|r| !r.counters.is_present()));
        assert_eq!(calls(dir.path()).len(), 1, "no run after the refusal");
        // garbage with exit 0: an error, the records untouched
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), "echo 'something else'");
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let e = pass.profile_batch(&[&spec]).unwrap_err().to_string();
        assert!(e.contains("no CSV table"), "{e}");
        assert!(!pass.stopped);
        // the old output without markers: its rows are no case's
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{GEMV_HOT}'"));
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let r = pass.profile_batch(&[&spec]).unwrap();
        assert!(
            matches!(&r[0], Err(e) if e.contains("0 case marker(s) for 1 case(s)")),
            "{r:?}"
        );
    }

    fn two_specs() -> (ProbeSpec, ProbeSpec) {
        let gemm = Shape::Gemm {
            m: 256,
            n: 4096,
            k: 4096,
        };
        let mut lib = spec("hgemm", "cublas", gemm, CacheMode::Cold);
        lib.case = 1;
        (spec("gemv", "ours", gemv_shape(), CacheMode::Cold), lib)
    }

    #[test]
    fn two_cases_share_one_ncu_run_and_get_their_own_kernels() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{TWO_CASES}'"));
        let (a, b) = two_specs();
        let mut recs = records_for(&[&a, &b]);
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(&[a, b], &mut recs);
        let runs = calls(dir.path());
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert!(runs[0].contains("--cache-control all"), "{}", runs[0]);
        assert!(
            runs[0].contains("probe-case gemv --cold --case 0 -- hgemm --cold --case 1"),
            "{}",
            runs[0]
        );
        let (gemv, gemm) = (&recs[0].counters, &recs[2].counters);
        assert_eq!(recs[1].counters, *gemv);
        assert_eq!(gemv.counters_kernels, Some(1));
        assert_eq!(gemv.dram_bytes_read, Some(33_591_808.0));
        assert_eq!(
            gemv.flops_measured,
            Some(4.0 * 4_194_304.0),
            "HFMA2: 4 FLOPs"
        );
        assert_eq!(gemm.counters_kernels, Some(2));
        assert_eq!(gemm.dram_bytes_read, Some(20_000_000.0 + 4_194_304.0));
        assert_eq!(
            gemm.dram_bytes_measured,
            Some(20_000_000.0 + 4_194_304.0 + 1_000_000.0 + 2_097_152.0)
        );
        assert_eq!(gemm.flops_measured, Some(8_589_934_592.0 + 4_194_304.0));
        assert!((gemm.counters_duration_ms.unwrap() - 0.103).abs() < 1e-12);
        // the hit rates weighted by the kernels' times: (70.5 x 100 + 50 x 3) / 103
        let h = gemm.l2_hit_rate.unwrap();
        assert!(
            (h - (70.5 * 100.0 + 50.0 * 3.0) / 103.0).abs() < 1e-9,
            "{h}"
        );
    }

    #[test]
    fn one_ncu_run_per_cache_mode() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{TWO_CASES}'"));
        let (a, b) = two_specs();
        let hot_a = ProbeSpec {
            cache: CacheMode::Hot,
            ..a.clone()
        };
        let hot_b = ProbeSpec {
            cache: CacheMode::Hot,
            ..b.clone()
        };
        let mut recs = records_for(&[&a, &hot_a, &b, &hot_b]);
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        pass.attach(&[a, hot_a, b, hot_b], &mut recs);
        let runs = calls(dir.path());
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert!(runs[0].contains("--cache-control all") && runs[0].contains("--cold --case 1"));
        assert!(
            runs[1].contains("--cache-control none --replay-mode application")
                && runs[1].contains("gemv --hot --case 0 -- hgemm --hot --case 1")
        );
        assert!(recs.iter().all(|r| r.counters.is_present()));
    }

    #[test]
    fn a_probe_that_stops_part_way_keeps_the_finished_cases() {
        // The child died in the second case (exit 1): the first case's rows are followed by
        // the second's marker, so they are whole; the second's may not be.
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(
            dir.path(),
            &format!("cat '{TWO_CASES}'; echo 'error: out of GPU memory' >&2; exit 1"),
        );
        let (a, b) = two_specs();
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let r = pass.profile_batch(&[&a, &b]).unwrap();
        assert_eq!(r[0].as_ref().unwrap().counters_kernels, Some(1));
        let e = r[1].as_ref().unwrap_err();
        assert!(
            e.contains("stopped before") && e.contains("out of GPU memory"),
            "{e}"
        );
        // a run that ended well but shows fewer markers than cases: the same reading
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{TWO_CASES}'"));
        let mut third = b.clone();
        third.case = 2;
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let r = pass.profile_batch(&[&a, &b, &third]).unwrap();
        assert!(r[0].is_ok());
        assert!(matches!(&r[1], Err(e) if e.contains("2 case marker(s) for 3 case(s)")));
        assert!(r[2].is_err());
        // more markers than cases: nothing can be attributed
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), &format!("cat '{TWO_CASES}'"));
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let r = pass.profile_batch(&[&a]).unwrap();
        assert!(matches!(&r[0], Err(e) if e.contains("cannot be told apart")));
        // no rows at all, the child failed: the whole run's failure
        let dir = tempfile::tempdir().unwrap();
        let ncu = fake_ncu(dir.path(), "echo 'error: no CUDA GPU' >&2; exit 1");
        let mut pass = CounterPass::with(ncu, "/bin/true".into(), 0);
        let e = pass.profile_batch(&[&a, &b]).unwrap_err();
        assert_eq!(e, Failure::Other("error: no CUDA GPU".into()));
    }
}
