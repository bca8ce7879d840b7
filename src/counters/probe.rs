//! What the parent hands the `probe-case` child: the bench-style arguments that rebuild each
//! case from the registry, which of the request's cases it is, and the cache mode. The child
//! builds the same request with the same family code, so the case is the one that was timed.
//! One child profiles every case of one cache mode (ncu's cache flags are per process), the
//! cases separated by `--` on its command line.

use crate::dtype::Dtype;
use crate::measure::{BenchCase, CacheMode, CaseId};
use crate::registry::{self, shape_flags, BenchRequest};
use crate::results::schema::{Record, Shape};
use std::ffi::OsString;
use std::path::Path;

/// The request part of a bench command line, as `probe-case` takes it.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    pub family: &'a str,
    pub shape: Option<&'a Shape>,
    /// `--impl` as given (empty: the family's defaults).
    pub impls: &'a [String],
    /// `--variant` as given ("best", "v3", "all", ...).
    pub variant: &'a str,
    pub gelu: Option<&'a str>,
    /// The request's dtype (named in the arguments only when not fp16).
    pub dtype: Dtype,
    pub seed: u64,
    pub kernel_file: Option<&'a Path>,
    pub symbol: Option<&'a str>,
    /// `--plugin LIB.so[:SYMBOL]` as given.
    pub plugin: Option<&'a str>,
}

impl Request<'_> {
    pub fn args(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![self.family.into()];
        if let Some(s) = self.shape {
            a.extend(shape_flags(s).split_whitespace().map(OsString::from));
        }
        if !self.impls.is_empty() {
            a.extend(["--impl".into(), self.impls.join(",").into()]);
        }
        a.extend(["--variant".into(), self.variant.into()]);
        if let Some(g) = self.gelu {
            a.extend(["--gelu".into(), g.into()]);
        }
        if self.dtype != Dtype::F16 {
            a.extend(["--dtype".into(), self.dtype.name().into()]);
        }
        a.extend(["--seed".into(), self.seed.to_string().into()]);
        if let Some(f) = self.kernel_file {
            a.extend(["--kernel-file".into(), f.as_os_str().to_owned()]);
        }
        if let Some(s) = self.symbol {
            a.extend(["--symbol".into(), s.into()]);
        }
        if let Some(p) = self.plugin {
            a.extend(["--plugin".into(), p.into()]);
        }
        a
    }
}

/// Separates the cases of one probe-case command line (clap takes what follows the first
/// one as trailing arguments; the child splits them at each further one).
pub const CASE_SEPARATOR: &str = "--";

/// One case to profile.
#[derive(Debug, Clone)]
pub struct ProbeSpec {
    pub request: Vec<OsString>,
    /// Its index among the request's cases (bench's order, a user's kernel last).
    pub case: usize,
    pub cache: CacheMode,
    /// The case's identity: which records get its counters.
    pub id: CaseId,
}

impl ProbeSpec {
    /// One spec per case of a bench run, in the order the cases were built.
    pub fn for_cases(
        request: Vec<OsString>,
        cases: &[Box<dyn BenchCase>],
        cache: CacheMode,
    ) -> Vec<Self> {
        cases
            .iter()
            .enumerate()
            .map(|(case, c)| ProbeSpec {
                request: request.clone(),
                case,
                cache,
                id: c.id(),
            })
            .collect()
    }

    /// The spec for one case of a family, rebuilt through the registry as `probe-case` will
    /// rebuild it (None when the family makes another case of that request, or none).
    pub fn single(
        family: &str,
        impl_: &str,
        shape: &Shape,
        cache: CacheMode,
        seed: u64,
    ) -> Option<Self> {
        let f = registry::find(family)?;
        f.resolve_impls(&[impl_.to_string()]).ok()?;
        let req = BenchRequest {
            shape: shape.clone(),
            impls: vec![impl_.to_string()],
            variants: vec![(f.best)()],
            gelu: 0,
            seed,
            dtype: Dtype::F16,
        };
        let cases = (f.bench_cases)(&req).ok()?;
        let [case] = cases.as_slice() else {
            return None;
        };
        let impls = [impl_.to_string()];
        let request = Request {
            family: f.name,
            shape: Some(shape),
            impls: &impls,
            variant: "best",
            seed,
            ..Request::default()
        };
        Some(ProbeSpec {
            request: request.args(),
            case: 0,
            cache,
            id: case.id(),
        })
    }

    /// The child's command line: `--device N probe-case REQUEST --cold|--hot --case I`.
    pub fn child_args(&self, device: usize) -> Vec<OsString> {
        Self::batch_args(&[self], device)
    }

    /// This case's part of a probe-case command line: `REQUEST --cold|--hot --case I`.
    fn case_args(&self) -> Vec<OsString> {
        let mut a = self.request.clone();
        a.push(match self.cache {
            CacheMode::Cold => "--cold".into(),
            CacheMode::Hot => "--hot".into(),
        });
        a.extend(["--case".into(), self.case.to_string().into()]);
        a
    }

    /// One child for several cases, profiled in this order in one process: `--device N
    /// probe-case CASE_1 -- CASE_2 -- ...`, each CASE as in [`ProbeSpec::child_args`].
    pub fn batch_args(specs: &[&ProbeSpec], device: usize) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![
            "--device".into(),
            device.to_string().into(),
            "probe-case".into(),
        ];
        for (i, s) in specs.iter().enumerate() {
            if i > 0 {
                a.push(CASE_SEPARATOR.into());
            }
            a.extend(s.case_args());
        }
        a
    }

    /// Whether `r` measured this case (any experiment and timing: the counters of one launch
    /// do not depend on how it was timed).
    pub fn matches(&self, r: &Record) -> bool {
        r.kernel == self.id.kernel
            && r.impl_ == self.id.impl_
            && r.variant == self.id.variant
            && r.shape == self.id.shape
            && r.dtype == self.id.dtype
            && r.cache == self.cache.as_str()
    }

    /// "gemv ours v14 1x4096x4096 (cold)", for messages.
    pub fn label(&self) -> String {
        format!("{} ({})", self.id.describe(), self.cache.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: &[OsString]) -> String {
        v.iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_bench_request_becomes_probe_case_arguments() {
        let shape = Shape::Gemm {
            m: 1,
            n: 4096,
            k: 4096,
        };
        let impls = vec!["ours".to_string(), "cublas".to_string()];
        let r = Request {
            family: "gemv",
            shape: Some(&shape),
            impls: &impls,
            variant: "best",
            gelu: None,
            dtype: Dtype::F16,
            seed: 7,
            kernel_file: Some(Path::new("k.cu")),
            symbol: Some("my_gemv"),
            plugin: None,
        };
        assert_eq!(
            strs(&r.args()),
            "gemv --m 1 --n 4096 --k 4096 --impl ours,cublas --variant best --seed 7 \
             --kernel-file k.cu --symbol my_gemv"
        );
        let f = registry::find("gemv").unwrap();
        let req = BenchRequest {
            shape: shape.clone(),
            impls: impls.clone(),
            variants: vec![(f.best)()],
            gelu: 0,
            seed: 7,
            dtype: Dtype::F16,
        };
        let cases = (f.bench_cases)(&req).unwrap();
        let specs = ProbeSpec::for_cases(r.args(), &cases, CacheMode::Hot);
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].id.impl_, "cublas");
        assert!(strs(&specs[1].child_args(2)).starts_with("--device 2 probe-case gemv --m 1"));
        assert!(strs(&specs[1].child_args(2)).ends_with("--hot --case 1"));
        // both cases in one child, in order, separated by "--"
        let both = strs(&ProbeSpec::batch_args(&[&specs[1], &specs[0]], 0));
        let cases: Vec<&str> = both
            .strip_prefix("--device 0 probe-case ")
            .unwrap()
            .split(" -- ")
            .collect();
        assert_eq!(cases.len(), 2, "{both}");
        assert!(cases[0].starts_with("gemv --m 1") && cases[0].ends_with("--hot --case 1"));
        assert!(cases[1].ends_with("--hot --case 0"));
        assert_eq!(
            specs[0].label(),
            format!("gemv ours v{} 1x4096x4096 (hot)", (f.best)())
        );
    }

    /// A bf16 request names its dtype for the child (fp16, the default, is left out), and its
    /// spec takes the counters of the bf16 record alone, not the fp16 one of the same shape.
    #[test]
    fn a_bf16_request_keeps_its_dtype() {
        let shape = Shape::Gemm {
            m: 4096,
            n: 4096,
            k: 4096,
        };
        let r = Request {
            family: "hgemm",
            shape: Some(&shape),
            variant: "best",
            dtype: Dtype::Bf16,
            seed: 1,
            ..Request::default()
        };
        assert!(strs(&r.args()).contains("--variant best --dtype bf16 --seed 1"));
        let f16 = Request {
            dtype: Dtype::F16,
            ..r.clone()
        };
        assert!(!strs(&f16.args()).contains("--dtype"));
        let f = registry::find("hgemm").unwrap();
        let req = BenchRequest {
            shape: shape.clone(),
            impls: vec!["ours".into()],
            variants: vec![(f.best)()],
            gelu: 0,
            seed: 1,
            dtype: Dtype::Bf16,
        };
        let cases = (f.bench_cases)(&req).unwrap();
        let spec = &ProbeSpec::for_cases(r.args(), &cases, CacheMode::Cold)[0];
        let mut rec = crate::results::schema::tests::fixture().records[0].clone();
        (rec.kernel, rec.impl_, rec.variant) =
            ("hgemm".into(), "ours".into(), spec.id.variant.clone());
        (rec.shape, rec.cache, rec.dtype) = (shape.clone(), "cold".into(), "bf16".into());
        assert!(spec.matches(&rec));
        rec.dtype = "fp16".into();
        assert!(!spec.matches(&rec));
    }

    #[test]
    fn single_cases_rebuild_through_the_registry() {
        let s = Shape::Gemm {
            m: 4096,
            n: 4096,
            k: 4096,
        };
        let spec = ProbeSpec::single("hgemm", "cublas", &s, CacheMode::Cold, 1).unwrap();
        assert_eq!(
            (spec.id.kernel.as_str(), spec.id.impl_.as_str()),
            ("hgemm", "cublas")
        );
        assert!(strs(&spec.child_args(0))
            .ends_with("--impl cublas --variant best --seed 1 --cold --case 0"));
        assert!(ProbeSpec::single("softmax", "ours", &s, CacheMode::Cold, 1).is_none());
        assert!(ProbeSpec::single("hgemm", "nope", &s, CacheMode::Cold, 1).is_none());
    }
}
