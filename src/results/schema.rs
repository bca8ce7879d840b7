//! The results file schema: `{"run": {...}, "records": [...]}`.
//!
//! Field names are part of the on-disk format; do not rename them without a
//! migration. JSON numbers must be finite: [`ResultsFile::save`] refuses to
//! write NaN or infinity (JSON cannot hold them, and serde_json would write
//! `null`, which this schema cannot read back).

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

pub use super::counters::Counters;

/// A whole results file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ResultsFile {
    pub run: RunInfo,
    pub records: Vec<Record>,
}

/// What the run was measured on, and the ceilings used to place records.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct RunInfo {
    /// e.g. "NVIDIA H200"
    pub device: String,
    /// e.g. "580.159.04", or the CUDA driver version "13.0"
    pub driver: String,
    /// e.g. "13.0"
    pub cuda_runtime: String,
    pub git_commit: String,
    /// RFC 3339, UTC
    pub date: String,
    pub tool_version: String,
    /// Measured and datasheet ceilings: the ones used for placement.
    pub ceilings: Vec<Ceiling>,
    /// Wall-clock seconds of the whole run (a report), and of each of its phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases_s: Vec<(String, f64)>,
}

/// What a ceiling limits.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum CeilingKind {
    /// Bandwidth, value in GB/s.
    Memory,
    /// Throughput, value in TFLOP/s.
    Compute,
    /// A minimum time, value in microseconds.
    Latency,
}

impl CeilingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CeilingKind::Memory => "memory",
            CeilingKind::Compute => "compute",
            CeilingKind::Latency => "latency",
        }
    }
}

impl fmt::Display for CeilingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One ceiling (roof) of the roofline.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Ceiling {
    /// Stable id: "hbm_copy", "hbm_read", "l2_read", "tensor_cublas_fp16",
    /// "tensor_cublas_bf16", "tensor_wmma", "fp32_ffma", "fp16_hfma2",
    /// "launch_floor_single", "launch_floor_graph"; datasheet ones:
    /// "datasheet_hbm", "datasheet_tensor_fp16", "datasheet_fp32".
    pub name: String,
    pub kind: CeilingKind,
    /// GB/s for memory, TFLOP/s for compute, microseconds for latency.
    pub value: f64,
    /// "GB/s" | "TFLOP/s" | "us"
    pub unit: String,
    /// "measured" | "datasheet"
    pub source: String,
    /// Human label for charts: "HBM copy 4.25 TB/s".
    pub label: String,
}

impl Ceiling {
    pub fn is_datasheet(&self) -> bool {
        self.source == "datasheet"
    }
}

/// One measurement.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Record {
    /// "square" | "fusion" | "decode" | "elementwise" | "bench" | "check" ...
    pub experiment: String,
    /// "hgemm" | "gemm_bias_gelu" | "gemv" | "relu" | "gelu" | "layernorm" | "copy"
    pub kernel: String,
    /// "ours" | "cublas" | "cublaslt" | "unfused" | "unfused_cublas"
    #[serde(rename = "impl")]
    pub impl_: String,
    /// "v4", or "" for library impls.
    pub variant: String,
    pub shape: Shape,
    /// "fp16" | "bf16" (the GEMM families' bf16 forms, cuBLAS / cuBLASLt in bf16). A record
    /// without one (none were written so, but a hand-made or trimmed file may lack it) is fp16,
    /// what every record was before bf16.
    #[serde(default = "fp16")]
    pub dtype: String,
    /// "cold" | "hot"
    pub cache: String,
    /// "launch" | "graph"
    pub timing: String,
    pub median_ms: f64,
    pub min_ms: f64,
    pub p10_ms: f64,
    pub p90_ms: f64,
    /// Relative noise: MAD / median.
    pub noise: f64,
    pub samples: u32,
    /// From the kernel's work model.
    pub flops: f64,
    /// From the kernel's work model.
    pub bytes: f64,
    pub tflops: f64,
    pub gbs: f64,
    /// Arithmetic intensity, FLOP/byte.
    pub ai: f64,
    /// "memory" | "compute" | "latency"
    pub bound: String,
    /// 100 * predicted_time / measured_time, predicted from the ceilings.
    pub pct_attainable: f64,
    pub verified: bool,
    /// None when verification was skipped.
    pub max_rel_err: Option<f64>,
    /// The clocks of the samples the figure comes from.
    pub clocks: Option<Clocks>,
    /// What the figure is: "clean" (unthrottled samples only), "throttled" (too few clean
    /// samples in the time cap: capped samples included), "sustained" (every sample, asked
    /// for), "unjudged" (no NVML). Absent in records of older builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Samples judged unthrottled, of all taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clean_samples: Option<u32>,
    /// Fraction of the samples taken that were throttled (and left out unless sustained).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_fraction: Option<f64>,
    /// What the hardware counters measured (`--counters`); its fields sit at the record's
    /// top level on disk and are left out when absent.
    #[serde(flatten)]
    pub counters: Counters,
}

fn fp16() -> String {
    "fp16".into()
}

/// Problem size. Untagged: the JSON object's fields tell the variant apart.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(untagged)]
pub enum Shape {
    Gemm { m: u64, n: u64, k: u64 },
    Rows { rows: u64, hidden: u64 },
    Elems { elems: u64 },
    Bytes { bytes: u64 },
}

/// GPU clocks and health sampled around a measurement.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Clocks {
    pub sm_mhz_min: u32,
    pub sm_mhz_max: u32,
    pub mem_mhz: u32,
    pub temp_c: u32,
    pub power_w: f64,
    pub throttle: Vec<String>,
}

/// Everything that identifies a measurement (not its outcome). Two records
/// with equal keys measured the same thing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordKey {
    pub experiment: String,
    pub kernel: String,
    pub impl_: String,
    pub variant: String,
    pub shape: Shape,
    pub dtype: String,
    pub cache: String,
    pub timing: String,
}

impl fmt::Display for RecordKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.experiment, self.kernel, self.impl_)?;
        if !self.variant.is_empty() {
            write!(f, "/{}", self.variant)?;
        }
        write!(
            f,
            " {} {} {} {}",
            self.shape.label(),
            self.dtype,
            self.cache,
            self.timing
        )
    }
}

/// Binary-unit byte count with one decimal: "512 B", "4.0 KiB", "1.0 GiB".
pub fn format_bytes(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if !bytes.is_finite() || bytes.abs() < 1024.0 {
        return format!("{bytes} B");
    }
    let mut v = bytes;
    let mut unit = "B";
    for u in UNITS {
        if v.abs() < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

impl Shape {
    /// Human label: "4096x4096x4096", "32768x4096", "268435456 elems", "1.0 GiB".
    pub fn label(&self) -> String {
        match *self {
            Shape::Gemm { m, n, k } => format!("{m}x{n}x{k}"),
            Shape::Rows { rows, hidden } => format!("{rows}x{hidden}"),
            Shape::Elems { elems } => format!("{elems} elems"),
            Shape::Bytes { bytes } => format_bytes(bytes as f64),
        }
    }

    /// The size a sweep's x axis runs over: `m` for GEMMs (the batch/token
    /// dimension of decode and fusion sweeps; for square GEMMs m = n = k),
    /// `rows` for row-wise kernels, `elems`, or `bytes`.
    pub fn primary(&self) -> u64 {
        match *self {
            Shape::Gemm { m, .. } => m,
            Shape::Rows { rows, .. } => rows,
            Shape::Elems { elems } => elems,
            Shape::Bytes { bytes } => bytes,
        }
    }

    /// Name of the [`Shape::primary`] dimension, for axis titles.
    pub fn primary_name(&self) -> &'static str {
        match self {
            Shape::Gemm { .. } => "M",
            Shape::Rows { .. } => "rows",
            Shape::Elems { .. } => "elements",
            Shape::Bytes { .. } => "bytes",
        }
    }

    /// True for a GEMM with m = n = k.
    pub fn is_square(&self) -> bool {
        matches!(*self, Shape::Gemm { m, n, k } if m == n && n == k)
    }

    /// Number of elements the shape covers, where that is defined
    /// (GEMM: none, it has three operands).
    pub fn elements(&self) -> Option<u64> {
        match *self {
            Shape::Gemm { .. } | Shape::Bytes { .. } => None,
            Shape::Rows { rows, hidden } => Some(rows * hidden),
            Shape::Elems { elems } => Some(elems),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl Record {
    /// The identity of the measurement (see [`RecordKey`]).
    pub fn key(&self) -> RecordKey {
        RecordKey {
            experiment: self.experiment.clone(),
            kernel: self.kernel.clone(),
            impl_: self.impl_.clone(),
            variant: self.variant.clone(),
            shape: self.shape.clone(),
            dtype: self.dtype.clone(),
            cache: self.cache.clone(),
            timing: self.timing.clone(),
        }
    }

    /// True for vendor library implementations ("cublas", "cublaslt").
    pub fn is_library(&self) -> bool {
        is_library_impl(&self.impl_)
    }

    /// Display name of the implementation: "ours v4", "cuBLAS", "cuBLASLt",
    /// "unfused v1", "unfused (cuBLAS)".
    pub fn impl_label(&self) -> String {
        impl_label(&self.impl_, &self.variant)
    }

    pub fn median_us(&self) -> f64 {
        self.median_ms * 1e3
    }

    /// "verified", "FAILED" or "skipped".
    pub fn verification_label(&self) -> &'static str {
        if self.verified {
            "verified"
        } else if self.max_rel_err.is_none() {
            "skipped"
        } else {
            "FAILED"
        }
    }

    /// Names of the numeric fields that are NaN or infinite.
    pub fn non_finite_fields(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let fields = [
            ("median_ms", self.median_ms),
            ("min_ms", self.min_ms),
            ("p10_ms", self.p10_ms),
            ("p90_ms", self.p90_ms),
            ("noise", self.noise),
            ("flops", self.flops),
            ("bytes", self.bytes),
            ("tflops", self.tflops),
            ("gbs", self.gbs),
            ("ai", self.ai),
            ("pct_attainable", self.pct_attainable),
        ];
        for (name, v) in fields {
            if !v.is_finite() {
                out.push(name);
            }
        }
        if matches!(self.max_rel_err, Some(e) if !e.is_finite()) {
            out.push("max_rel_err");
        }
        if matches!(&self.clocks, Some(c) if !c.power_w.is_finite()) {
            out.push("clocks.power_w");
        }
        out.extend(self.counters.non_finite_fields());
        out
    }
}

/// True for vendor library implementation ids ("cublas", "cublaslt").
pub fn is_library_impl(impl_: &str) -> bool {
    matches!(impl_, "cublas" | "cublaslt")
}

/// The record of `impl_` measured beside `r`: same experiment, kernel, shape, dtype, cache
/// and timing (cuBLAS beside one of ours, for instance), if `recs` holds one with a time.
pub fn beside<'r>(recs: &[&'r Record], r: &Record, impl_: &str) -> Option<&'r Record> {
    recs.iter().copied().find(|c| {
        c.impl_ == impl_
            && c.experiment == r.experiment
            && c.kernel == r.kernel
            && c.shape == r.shape
            && c.dtype == r.dtype
            && c.cache == r.cache
            && c.timing == r.timing
            && c.median_ms.is_finite()
            && c.median_ms > 0.0
    })
}

/// Display name of an implementation id plus variant.
pub fn impl_label(impl_: &str, variant: &str) -> String {
    let base = match impl_ {
        "cublas" => "cuBLAS".to_string(),
        "cublaslt" => "cuBLASLt".to_string(),
        "unfused_cublas" => "unfused (cuBLAS)".to_string(),
        other => other.to_string(),
    };
    if variant.is_empty() {
        base
    } else {
        format!("{base} {variant}")
    }
}

impl ResultsFile {
    /// Parses a results file from JSON text.
    pub fn from_json(text: &str) -> anyhow::Result<Self> {
        serde_json::from_str(text).context("parsing results JSON")
    }

    /// Pretty JSON, newline-terminated. Errors on NaN/infinite numbers.
    pub fn to_json(&self) -> anyhow::Result<String> {
        self.check_finite()?;
        let mut s = serde_json::to_string_pretty(self)?;
        s.push('\n');
        Ok(s)
    }

    /// Reads and parses a results file.
    pub fn load(path: impl AsRef<Path>) -> anyhow::Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading results file {}", path.display()))?;
        Self::from_json(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Writes the file atomically (temp file + fsync + rename).
    pub fn save(&self, path: impl AsRef<Path>) -> anyhow::Result<()> {
        let path = path.as_ref();
        let json = self.to_json()?;
        crate::results::atomic::write_atomic(path, json.as_bytes())
            .with_context(|| format!("writing results file {}", path.display()))
    }

    /// Errors, naming the record and field, if any number is NaN or infinite.
    pub fn check_finite(&self) -> anyhow::Result<()> {
        let mut problems = Vec::new();
        for c in &self.run.ceilings {
            if !c.value.is_finite() {
                problems.push(format!("ceiling {}: value", c.name));
            }
        }
        for r in &self.records {
            let bad = r.non_finite_fields();
            if !bad.is_empty() {
                problems.push(format!("{}: {}", r.key(), bad.join(", ")));
            }
        }
        if !problems.is_empty() {
            bail!(
                "results hold non-finite numbers, which JSON cannot store: {}",
                problems.join("; ")
            );
        }
        Ok(())
    }

    /// Experiments present, in first-appearance order.
    pub fn experiments(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for r in &self.records {
            if seen.insert(r.experiment.as_str()) {
                out.push(r.experiment.as_str());
            }
        }
        out
    }

    /// Records of one experiment, in file order.
    pub fn records_of<'a>(&'a self, experiment: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.records
            .iter()
            .filter(move |r| r.experiment == experiment)
    }

    pub fn has_experiment(&self, experiment: &str) -> bool {
        self.records.iter().any(|r| r.experiment == experiment)
    }

    /// The ceiling with this stable name.
    pub fn ceiling(&self, name: &str) -> Option<&Ceiling> {
        self.run.ceilings.iter().find(|c| c.name == name)
    }

    /// Adds `other`'s records; a record whose key is already present replaces
    /// the old one in place. The run info is kept unless it is empty (default).
    pub fn merge(&mut self, other: ResultsFile) {
        if self.run == RunInfo::default() {
            self.run = other.run;
        }
        for rec in other.records {
            let key = rec.key();
            match self.records.iter_mut().find(|r| r.key() == key) {
                Some(slot) => *slot = rec,
                None => self.records.push(rec),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const FIXTURE: &str = include_str!("../../tests/fixtures/results_small.json");

    pub(crate) fn fixture() -> ResultsFile {
        ResultsFile::from_json(FIXTURE).expect("fixture parses")
    }

    /// The llm sweep's records (ours v11 and cuBLAS at four shapes, one cuBLAS figure
    /// CAPPED), kept apart so that the other charts' and sections' tests keep their layout.
    pub(crate) const LLM_FIXTURE: &str = include_str!("../../tests/fixtures/results_llm.json");

    /// [`fixture`] with the llm sweep's records.
    pub(crate) fn fixture_with_llm() -> ResultsFile {
        let mut f = fixture();
        f.merge(ResultsFile::from_json(LLM_FIXTURE).expect("llm fixture parses"));
        f
    }

    #[test]
    fn fixture_parses_and_covers_every_experiment() {
        let f = fixture();
        assert_eq!(f.run.device, "NVIDIA H200");
        for exp in [
            "square",
            "decode",
            "fusion",
            "elementwise",
            "bench",
            "check",
        ] {
            assert!(f.has_experiment(exp), "fixture lacks {exp}");
        }
        assert!(f.ceiling("hbm_copy").is_some());
        assert_eq!(
            f.ceiling("launch_floor_graph").unwrap().kind,
            CeilingKind::Latency
        );
        assert!(f.records.iter().any(|r| r.max_rel_err.is_none()));
        assert!(f.records.iter().any(|r| r.clocks.is_none()));
        assert!(f
            .records
            .iter()
            .any(|r| matches!(r.shape, Shape::Rows { .. })));
        assert!(f
            .records
            .iter()
            .any(|r| matches!(r.shape, Shape::Elems { .. })));
        assert!(f
            .records
            .iter()
            .any(|r| matches!(r.shape, Shape::Bytes { .. })));
        // keys are unique
        let keys: BTreeSet<_> = f.records.iter().map(Record::key).collect();
        assert_eq!(keys.len(), f.records.len());
    }

    #[test]
    fn json_round_trip() {
        let f = fixture();
        let text = f.to_json().unwrap();
        assert_eq!(ResultsFile::from_json(&text).unwrap(), f);
        // impl is renamed on disk, kind is lowercase, shape is untagged
        assert!(text.contains("\"impl\": \"cublas\""));
        assert!(text.contains("\"kind\": \"memory\""));
        assert!(text.contains("\"m\": 4096"));
        assert!(!text.contains("Gemm"));
    }

    /// A bf16 record keeps its dtype through a file; a record without one reads as fp16 (so
    /// `compare` still reads such a file, and pairs it with fp16 records, never bf16 ones).
    #[test]
    fn dtype_round_trips_and_defaults_to_fp16() {
        let mut f = fixture();
        f.records[0].dtype = "bf16".into();
        let text = f.to_json().unwrap();
        let back = ResultsFile::from_json(&text).unwrap();
        assert_eq!(back.records[0].dtype, "bf16");
        assert_eq!(back, f);
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for r in v["records"].as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("dtype");
        }
        let old = ResultsFile::from_json(&v.to_string()).unwrap();
        assert!(old.records.iter().all(|r| r.dtype == "fp16"));
        assert_eq!(old.records.len(), f.records.len());
        // an fp16 and a bf16 record of one shape are two measurements, not one
        let (a, mut b) = (f.records[1].clone(), f.records[1].clone());
        b.dtype = "bf16".into();
        assert_ne!(a.key(), b.key());
    }

    #[test]
    fn untagged_shapes_parse() {
        let s: Shape = serde_json::from_str(r#"{"m":1,"n":2,"k":3}"#).unwrap();
        assert_eq!(s, Shape::Gemm { m: 1, n: 2, k: 3 });
        let s: Shape = serde_json::from_str(r#"{"rows":8,"hidden":4096}"#).unwrap();
        assert_eq!(
            s,
            Shape::Rows {
                rows: 8,
                hidden: 4096
            }
        );
        let s: Shape = serde_json::from_str(r#"{"elems":10}"#).unwrap();
        assert_eq!(s, Shape::Elems { elems: 10 });
        let s: Shape = serde_json::from_str(r#"{"bytes":1024}"#).unwrap();
        assert_eq!(s, Shape::Bytes { bytes: 1024 });
        assert!(serde_json::from_str::<Shape>(r#"{"q":1}"#).is_err());
    }

    #[test]
    fn shape_labels() {
        assert_eq!(
            Shape::Gemm {
                m: 4096,
                n: 4096,
                k: 4096
            }
            .label(),
            "4096x4096x4096"
        );
        assert_eq!(
            Shape::Rows {
                rows: 32768,
                hidden: 4096
            }
            .label(),
            "32768x4096"
        );
        assert_eq!(Shape::Elems { elems: 268435456 }.label(), "268435456 elems");
        assert_eq!(Shape::Bytes { bytes: 1 << 30 }.label(), "1.0 GiB");
        assert_eq!(Shape::Bytes { bytes: 512 }.label(), "512 B");
        assert_eq!(Shape::Bytes { bytes: 3 << 19 }.label(), "1.5 MiB");
        assert_eq!(
            Shape::Gemm {
                m: 1,
                n: 4096,
                k: 4096
            }
            .primary(),
            1
        );
        assert!(Shape::Gemm { m: 8, n: 8, k: 8 }.is_square());
        assert!(!Shape::Gemm { m: 1, n: 8, k: 8 }.is_square());
    }

    #[test]
    fn key_display_and_labels() {
        let f = fixture();
        let r = &f.records[0];
        assert_eq!(
            r.key().to_string(),
            "square/hgemm/ours/v1 1024x1024x1024 fp16 hot launch"
        );
        assert_eq!(impl_label("cublas", ""), "cuBLAS");
        assert_eq!(impl_label("ours", "v4"), "ours v4");
        assert_eq!(impl_label("unfused_cublas", ""), "unfused (cuBLAS)");
    }

    #[test]
    fn save_load_and_refuse_nan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let f = fixture();
        f.save(&path).unwrap();
        assert_eq!(ResultsFile::load(&path).unwrap(), f);

        let mut bad = f.clone();
        bad.records[3].ai = f64::NAN;
        let err = bad.save(&path).unwrap_err().to_string();
        assert!(err.contains("ai"), "{err}");
        // the good file is untouched
        assert_eq!(ResultsFile::load(&path).unwrap(), f);
    }

    #[test]
    fn merge_replaces_by_key() {
        let f = fixture();
        let mut a = ResultsFile {
            run: RunInfo::default(),
            records: f.records[..3].to_vec(),
        };
        let mut changed = f.records[1].clone();
        changed.median_ms *= 2.0;
        let b = ResultsFile {
            run: f.run.clone(),
            records: vec![changed.clone(), f.records[4].clone()],
        };
        a.merge(b);
        assert_eq!(a.run, f.run);
        assert_eq!(a.records.len(), 4);
        assert_eq!(a.records[1], changed);
    }
}
