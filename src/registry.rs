//! The one registry of kernel families. Each family declares, in its own module under
//! src/kernels/, everything the commands need: its name, shape, work model, references and
//! tolerance, check shapes, variants, what "best" runs where, and the sweeps it joins.
//! `bench`, `check`, `list`, the elementwise sweep and the registry's CPU test iterate over
//! [`ALL`]; adding a family is one entry here (docs/adding-a-kernel.md).

use crate::dtype::Dtype;
use crate::error::usage;
use crate::measure::BenchCase;
use crate::results::schema::Shape;
use crate::roofline::Work;
use crate::user::plugin::LauncherAbi;
use crate::user::signature::Param;
use crate::user::UserKernel;
use crate::verify::Tolerance;
use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Every family, in the order `list`, `check` and the report show them. The list itself sits
/// beside the family modules' declarations in src/kernels/mod.rs, so that a new family is
/// declared and registered in one place.
pub use crate::kernels::FAMILIES as ALL;

/// The shape a family takes, with the defaults `bench` uses when a flag is left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    /// --m --n --k
    Gemm { m: u64, n: u64, k: u64 },
    /// --rows --hidden
    Rows { rows: u64, hidden: u64 },
    /// --elems
    Elems { elems: u64 },
    /// --bytes
    Bytes { bytes: u64 },
}

/// The bench flags that give a shape, e.g. "--m 1 --n 7 --k 9".
pub fn shape_flags(s: &Shape) -> String {
    match *s {
        Shape::Gemm { m, n, k } => format!("--m {m} --n {n} --k {k}"),
        Shape::Rows { rows, hidden } => format!("--rows {rows} --hidden {hidden}"),
        Shape::Elems { elems } => format!("--elems {elems}"),
        Shape::Bytes { bytes } => format!("--bytes {bytes}"),
    }
}

impl ShapeKind {
    /// The flags this shape takes, for messages and `list`.
    pub fn flags(&self) -> &'static [&'static str] {
        match self {
            ShapeKind::Gemm { .. } => &["--m", "--n", "--k"],
            ShapeKind::Rows { .. } => &["--rows", "--hidden"],
            ShapeKind::Elems { .. } => &["--elems"],
            ShapeKind::Bytes { .. } => &["--bytes"],
        }
    }
    pub fn default_shape(&self) -> Shape {
        match *self {
            ShapeKind::Gemm { m, n, k } => Shape::Gemm { m, n, k },
            ShapeKind::Rows { rows, hidden } => Shape::Rows { rows, hidden },
            ShapeKind::Elems { elems } => Shape::Elems { elems },
            ShapeKind::Bytes { bytes } => Shape::Bytes { bytes },
        }
    }
}

/// Shape flags as given on the command line (None: left out).
#[derive(Debug, Clone, Default)]
pub struct ShapeFlags {
    pub m: Option<u64>,
    pub n: Option<u64>,
    pub k: Option<u64>,
    pub rows: Option<u64>,
    pub hidden: Option<u64>,
    pub elems: Option<u64>,
    pub bytes: Option<u64>,
}

impl ShapeFlags {
    fn given(&self) -> Vec<&'static str> {
        [
            ("--m", self.m),
            ("--n", self.n),
            ("--k", self.k),
            ("--rows", self.rows),
            ("--hidden", self.hidden),
            ("--elems", self.elems),
            ("--bytes", self.bytes),
        ]
        .into_iter()
        .filter_map(|(f, v)| v.map(|_| f))
        .collect()
    }
}

/// One row of a family's dispatch table: which variant "best" runs at which shapes, and why.
#[derive(Debug, Clone, Copy)]
pub struct Dispatch {
    pub shapes: &'static str,
    pub runs: &'static str,
    pub why: &'static str,
}

/// What `check` asks a family for: every variant at a fixed shape, or the i-th random case
/// (exactly one case, on the one variant given).
#[derive(Debug, Clone, Copy)]
pub enum CheckPick {
    Fixed,
    Random { i: usize, seed: u64 },
}

impl CheckPick {
    /// The seed of a case: the family's own for a fixed shape, the check's for a random one.
    pub fn seed_or(self, fixed: u64) -> u64 {
        match self {
            CheckPick::Fixed => fixed,
            CheckPick::Random { seed, .. } => seed,
        }
    }
}

/// One case per variant: how most families build their check and bench cases.
pub fn per_variant(
    vs: &[u32],
    case: impl Fn(u32) -> Box<dyn BenchCase>,
) -> Vec<Box<dyn BenchCase>> {
    vs.iter().map(|&v| case(v)).collect()
}

/// A validated `bench` request, handed to the family to build its cases.
#[derive(Debug, Clone)]
pub struct BenchRequest {
    pub shape: Shape,
    /// Implementations to run, each one of the family's `impls`.
    pub impls: Vec<String>,
    /// Our variants (already resolved from "best", "all", "v3", ...).
    pub variants: Vec<u32>,
    /// 0 = tanh, 1 = erf, for families that take --gelu.
    pub gelu: i32,
    pub seed: u64,
    /// The element type; bf16 only where the family, the variants and the impls take it
    /// (`Family::check_dtype`).
    pub dtype: Dtype,
}

/// What a family offers in bf16 (`--dtype bf16`): the GEMM families' last variants.
#[derive(Debug, Clone, Copy)]
pub struct Bf16Forms {
    /// Whether variant v has a bf16 form (the C table's `*_variant_bf16`).
    pub variant: fn(u32) -> bool,
    /// The `--impl` choices that run in bf16 (the library's included).
    pub impls: &'static [&'static str],
}

/// Builds the cases `check` runs at one shape (every variant given, or one random pick), in a
/// dtype the family and the variants take (families without bf16 forms are only asked fp16).
pub type CheckCasesFn = fn(&Shape, &[u32], CheckPick, Dtype) -> Vec<Box<dyn BenchCase>>;
/// Builds the cases `bench` runs for a validated request.
pub type BenchCasesFn = fn(&BenchRequest) -> Result<Vec<Box<dyn BenchCase>>>;
/// The case at (data size in bytes, seed) of a sweep over sizes.
pub type SizePointFn = fn(u64, u64) -> Box<dyn BenchCase>;
/// The family's case running a user's kernel at a shape (gelu form, seed).
pub type UserCaseFn = fn(&Shape, Arc<UserKernel>, i32, u64) -> Box<dyn BenchCase>;

pub struct Family {
    /// The one name: `bench NAME`, `check --kernel NAME`, records' `kernel`, charts.
    pub name: &'static str,
    /// Older `bench` names still accepted.
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub shape: ShapeKind,
    /// What a run is checked against, primary first.
    pub references: &'static [&'static str],
    pub tolerance: Tolerance,
    /// `--impl` choices; `default_impls` run when it is left out.
    pub impls: &'static [&'static str],
    pub default_impls: &'static [&'static str],
    /// The implementation others are compared with in bench's summary ("" for none).
    pub library: &'static str,
    /// Whether the family takes `--gelu tanh|erf`.
    pub takes_gelu: bool,
    /// (number, one-line summary) of every variant this build carries.
    pub variants: fn() -> Vec<(u32, String)>,
    /// The variant "best" resolves to on this build.
    pub best: fn() -> u32,
    /// What "best" runs at which shapes.
    pub dispatch: &'static [Dispatch],
    /// FLOPs and minimum bytes of one run at a shape of this family's kind.
    pub work: fn(&Shape) -> Work,
    /// Fixed awkward shapes every variant is checked at.
    pub check_shapes: fn() -> Vec<Shape>,
    /// A random shape for `check --random`.
    pub random_shape: fn(&mut ChaCha8Rng) -> Shape,
    /// The cases `check` runs at one shape.
    pub check_cases: CheckCasesFn,
    /// The cases `bench` runs for a request.
    pub bench_cases: BenchCasesFn,
    /// The sweeps this family's records appear in.
    pub sweeps: &'static [&'static str],
    /// The family's point of the elementwise (memory-bound) sweep at a data size in bytes,
    /// for families that join it.
    pub elementwise_point: Option<SizePointFn>,
    /// The parameter list a user's kernel for this family takes (docs/adding-a-kernel.md,
    /// "Bring your own kernel"); the launch block's variables are the shape's.
    pub user_params: &'static [Param],
    /// The family's case around a user's kernel.
    pub user_case: UserCaseFn,
    /// The family's own launcher, whose C signature a user's plugin exports (`--plugin`):
    /// its Rust type (checked against the bindgen'd one), symbol and C prototype.
    pub plugin: LauncherAbi,
    /// Its bf16 forms; None: fp16 only.
    pub bf16: Option<Bf16Forms>,
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Family({})", self.name)
    }
}

impl Family {
    pub fn variant_ids(&self) -> Vec<u32> {
        (self.variants)().into_iter().map(|(v, _)| v).collect()
    }

    /// Whether the family runs in `dtype` at all (every family runs fp16).
    pub fn takes(&self, dtype: Dtype) -> bool {
        dtype == Dtype::F16 || self.bf16.is_some()
    }

    /// The variants with a form in `dtype` (all of them in fp16).
    pub fn variants_in(&self, dtype: Dtype) -> Vec<u32> {
        let ids = self.variant_ids();
        match (dtype, self.bf16) {
            (Dtype::F16, _) => ids,
            (Dtype::Bf16, Some(b)) => ids.into_iter().filter(|&v| (b.variant)(v)).collect(),
            (Dtype::Bf16, None) => Vec::new(),
        }
    }

    /// Checks a request's dtype before the GPU: the family, each variant and each
    /// implementation must have a form in it, else a usage error naming those that do.
    /// `impls` left to the family's defaults (`defaulted`) are narrowed to the dtype's instead.
    pub fn check_dtype(
        &self,
        dtype: Dtype,
        variants: &[u32],
        impls: Vec<String>,
        defaulted: bool,
    ) -> Result<Vec<String>> {
        if dtype == Dtype::F16 {
            return Ok(impls);
        }
        let Some(forms) = self.bf16 else {
            return Err(usage(format!(
                "--dtype {dtype}: {} runs in fp16 only; {dtype} runs in {}",
                self.name,
                bf16_families().join(", ")
            )));
        };
        let with: Vec<String> = self
            .variants_in(dtype)
            .iter()
            .map(|v| format!("v{v}"))
            .collect();
        if let Some(v) = variants.iter().find(|&&v| !(forms.variant)(v)) {
            return Err(usage(format!(
                "--dtype {dtype}: {} v{v} has no {dtype} form; the variants with one: {}",
                self.name,
                with.join(", ")
            )));
        }
        if defaulted {
            return Ok(impls
                .into_iter()
                .filter(|i| forms.impls.contains(&i.as_str()))
                .collect());
        }
        if let Some(i) = impls.iter().find(|i| !forms.impls.contains(&i.as_str())) {
            return Err(usage(format!(
                "--dtype {dtype}: --impl {i} of {} has no {dtype} form; those with one: {}",
                self.name,
                forms.impls.join(", ")
            )));
        }
        Ok(impls)
    }

    /// The shape a bench run uses: the flags given over the family's defaults. A flag of
    /// another shape kind is an error that names the flags this family takes.
    pub fn resolve_shape(&self, f: &ShapeFlags) -> Result<Shape> {
        let wrong: Vec<&str> = f
            .given()
            .into_iter()
            .filter(|g| !self.shape.flags().contains(g))
            .collect();
        if !wrong.is_empty() {
            return Err(usage(format!(
                "{} does not apply to {}: it takes {}",
                wrong.join(", "),
                self.name,
                self.shape.flags().join(" ")
            )));
        }
        Ok(match self.shape {
            ShapeKind::Gemm { m, n, k } => Shape::Gemm {
                m: f.m.unwrap_or(m),
                n: f.n.unwrap_or(n),
                k: f.k.unwrap_or(k),
            },
            ShapeKind::Rows { rows, hidden } => Shape::Rows {
                rows: f.rows.unwrap_or(rows),
                hidden: f.hidden.unwrap_or(hidden),
            },
            ShapeKind::Elems { elems } => Shape::Elems {
                elems: f.elems.unwrap_or(elems),
            },
            ShapeKind::Bytes { bytes } => Shape::Bytes {
                bytes: f.bytes.unwrap_or(bytes),
            },
        })
    }

    /// The implementations whose kernels are this project's (not a library's, not the read
    /// floor): what the sanitizer runs.
    pub fn our_impls(&self) -> Vec<&'static str> {
        self.impls
            .iter()
            .copied()
            .filter(|i| *i != self.library && !i.contains("cublas") && *i != "read")
            .collect()
    }

    /// `--impl` entries checked against this family's choices (empty: the defaults).
    pub fn resolve_impls(&self, given: &[String]) -> Result<Vec<String>> {
        if given.is_empty() {
            return Ok(self.default_impls.iter().map(|s| s.to_string()).collect());
        }
        given
            .iter()
            .map(|i| {
                if self.impls.contains(&i.as_str()) {
                    Ok(i.clone())
                } else {
                    Err(usage(format!(
                        "--impl '{i}' is not an implementation of {}: choose from {}",
                        self.name,
                        self.impls.join(", ")
                    )))
                }
            })
            .collect()
    }
}

/// The family of this name, or of this older `bench` name.
pub fn find(name: &str) -> Option<&'static Family> {
    ALL.iter()
        .copied()
        .find(|f| f.name == name || f.aliases.contains(&name))
}

/// Like [`find`], with a usage error that lists every family.
pub fn get(name: &str, flag: &str) -> Result<&'static Family> {
    find(name).ok_or_else(|| {
        usage(format!(
            "{flag}'{name}' is not a kernel family: choose from {} (`roofline list` describes each)",
            names().join(", ")
        ))
    })
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|f| f.name).collect()
}

/// The families with bf16 forms (`--dtype bf16`).
pub fn bf16_families() -> Vec<&'static str> {
    ALL.iter()
        .filter(|f| f.bf16.is_some())
        .map(|f| f.name)
        .collect()
}

/// Dimensions for random check shapes: half of them below 64 (small and odd sizes are where
/// tails and predicates go wrong), the rest up to `hi`.
pub fn random_dim(rng: &mut ChaCha8Rng, hi: u64) -> u64 {
    use rand::Rng;
    if rng.gen_bool(0.5) {
        rng.gen_range(1..=64)
    } else {
        rng.gen_range(1..=hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_family_is_complete() {
        let mut seen = std::collections::HashSet::new();
        for f in ALL {
            assert!(seen.insert(f.name), "{}: registered twice", f.name);
            for a in f.aliases {
                assert!(seen.insert(a), "{}: alias {a} clashes", f.name);
            }
            assert!(!f.summary.is_empty(), "{}: summary", f.name);
            assert!(!f.references.is_empty(), "{}: a reference", f.name);
            let vs = (f.variants)();
            assert!(!vs.is_empty(), "{}: at least one variant", f.name);
            assert!(
                vs.iter().all(|(_, s)| !s.is_empty()),
                "{}: summaries",
                f.name
            );
            assert!(
                f.variant_ids().contains(&(f.best)()),
                "{}: best exists",
                f.name
            );
            assert!(!f.dispatch.is_empty(), "{}: a dispatch table", f.name);
            assert!(!f.impls.is_empty() && !f.default_impls.is_empty());
            assert!(f.default_impls.iter().all(|i| f.impls.contains(i)));
            assert!(f.library.is_empty() || f.impls.contains(&f.library));
            assert!(
                !f.our_impls().is_empty(),
                "{}: an implementation of ours",
                f.name
            );
            let shapes = (f.check_shapes)();
            assert!(!shapes.is_empty(), "{}: check shapes", f.name);
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let mut all_shapes = shapes.clone();
            all_shapes.extend((0..20).map(|_| (f.random_shape)(&mut rng)));
            all_shapes.push(f.shape.default_shape());
            for s in &all_shapes {
                assert_eq!(
                    std::mem::discriminant(s),
                    std::mem::discriminant(&f.shape.default_shape()),
                    "{}: shape kind of {}",
                    f.name,
                    s.label()
                );
                let w = (f.work)(s);
                assert!(
                    w.bytes > 0.0 && w.flops >= 0.0,
                    "{}: work at {}",
                    f.name,
                    s.label()
                );
            }
            // A fixed shape checks every variant; a random pick is exactly one case.
            let ids = f.variant_ids();
            let (fixed, f16) = (CheckPick::Fixed, Dtype::F16);
            assert!((f.check_cases)(&shapes[0], &ids, fixed, f16).len() >= ids.len());
            let random = CheckPick::Random { i: 1, seed: 9 };
            let one = (f.check_cases)(&shapes[0], &ids[..1], random, f16);
            assert_eq!(one.len(), 1, "{}: one random case", f.name);
            // bf16: its variants with a bf16 form, one case per random pick, every case bf16
            let b16 = f.variants_in(Dtype::Bf16);
            assert_eq!(f.bf16.is_some(), !b16.is_empty(), "{}: bf16 forms", f.name);
            if !b16.is_empty() {
                let cs = (f.check_cases)(&shapes[0], &b16, fixed, Dtype::Bf16);
                assert!(cs.len() >= b16.len() && cs.iter().all(|c| c.id().dtype == "bf16"));
                let one = (f.check_cases)(&shapes[0], &b16[..1], random, Dtype::Bf16);
                assert_eq!(one.len(), 1, "{}: one random bf16 case", f.name);
                let req = BenchRequest {
                    shape: f.shape.default_shape(),
                    impls: f
                        .check_dtype(Dtype::Bf16, &b16, f.resolve_impls(&[]).unwrap(), true)
                        .unwrap(),
                    variants: b16.clone(),
                    gelu: 0,
                    seed: 1,
                    dtype: Dtype::Bf16,
                };
                let cases = (f.bench_cases)(&req).unwrap();
                assert!(!cases.is_empty() && cases.iter().all(|c| c.id().dtype == "bf16"));
            }
            let k = one[0].id().kernel;
            assert!(
                k == f.name || k.starts_with(&format!("{}_", f.name)),
                "{}: {k}",
                f.name
            );
            assert_eq!(
                f.elementwise_point.is_some(),
                f.sweeps.contains(&"elementwise"),
                "{}: joins the elementwise sweep by its point",
                f.name
            );
            // bench builds cases for its defaults without a GPU.
            let req = BenchRequest {
                shape: f.shape.default_shape(),
                impls: f.resolve_impls(&[]).unwrap(),
                variants: vec![(f.best)()],
                gelu: 0,
                seed: 1,
                dtype: Dtype::F16,
            };
            let cases = (f.bench_cases)(&req).unwrap();
            assert!(!cases.is_empty(), "{}: bench", f.name);
            assert!(cases.iter().all(|c| c.id().dtype == "fp16"), "{}", f.name);
        }
    }

    #[test]
    fn every_declared_sweep_exists_and_holds_the_family() {
        use crate::sweeps::{plan, Sweep, SweepOpts};
        for f in ALL {
            for s in f.sweeps {
                let sweep = Sweep::ALL
                    .iter()
                    .find(|w| w.name() == *s)
                    .unwrap_or_else(|| panic!("{}: no sweep {s}", f.name));
                let p = plan(*sweep, &SweepOpts::default());
                assert!(
                    p.iter().any(|c| {
                        let k = c
                            .relabel
                            .as_ref()
                            .map_or(c.case.id().kernel, |r| r.0.clone());
                        k == f.name || k.starts_with(&format!("{}_", f.name))
                    }),
                    "{}: not in sweep {s}",
                    f.name
                );
            }
        }
    }

    #[test]
    fn names_and_aliases_resolve() {
        for f in ALL {
            assert_eq!(find(f.name).unwrap().name, f.name);
            for a in f.aliases {
                assert_eq!(find(a).unwrap().name, f.name);
            }
        }
        let e = get("softmax", "").unwrap_err().to_string();
        assert!(e.contains("softmax") && e.contains("hgemm") && e.contains("layernorm"));
    }

    /// bf16 is refused, before the GPU, where the family, a variant or an implementation has
    /// no bf16 form, with the ones that do named; fp16 passes everything through.
    #[test]
    fn bf16_is_refused_where_there_is_no_bf16_form() {
        let bf16 = Dtype::Bf16;
        let gemv = find("gemv").unwrap();
        let e = gemv
            .check_dtype(bf16, &[(gemv.best)()], vec!["ours".into()], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gemv runs in fp16 only"), "{e}");
        assert!(e.contains("hgemm, gemm_bias_gelu, gemm_residual"), "{e}");
        assert_eq!(
            bf16_families(),
            ["hgemm", "gemm_bias_gelu", "gemm_residual"]
        );

        let h = find("hgemm").unwrap();
        let e = h
            .check_dtype(bf16, &[11, 14], vec!["ours".into()], false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("hgemm v11 has no bf16 form") && e.contains(": v14"),
            "{e}"
        );
        assert!(h
            .check_dtype(bf16, &[14], vec!["cublas".into()], false)
            .is_ok());
        assert_eq!(h.variants_in(bf16), [14, 18, 19, 21, 22, 23, 24, 32]);

        let g = find("gemm_bias_gelu").unwrap();
        let e = g
            .check_dtype(bf16, &[7], vec!["unfused".into()], false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--impl unfused") && e.contains("fused, plain, cublaslt"),
            "{e}"
        );
        // the defaults (fused, unfused, cublaslt) are narrowed instead
        let defaults = g.resolve_impls(&[]).unwrap();
        assert_eq!(
            g.check_dtype(bf16, &[7], defaults.clone(), true).unwrap(),
            ["fused", "cublaslt"]
        );
        // fp16: everything as given
        assert_eq!(
            g.check_dtype(Dtype::F16, &[1], defaults.clone(), true)
                .unwrap(),
            defaults
        );
        let r = find("gemm_residual").unwrap();
        assert_eq!(r.variants_in(bf16), [11]);
        assert!(r.check_dtype(bf16, &[7], vec![], true).is_err());
        for f in ALL {
            assert!(f.takes(Dtype::F16));
            assert_eq!(f.takes(bf16), f.bf16.is_some(), "{}", f.name);
            assert_eq!(f.variants_in(Dtype::F16), f.variant_ids());
        }
    }

    #[test]
    fn shape_flags_of_another_kind_are_refused() {
        let f = find("relu").unwrap();
        let e = f
            .resolve_shape(&ShapeFlags {
                m: Some(4),
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("--m") && e.contains("--elems"), "{e}");
        let g = find("hgemm").unwrap();
        let s = g
            .resolve_shape(&ShapeFlags {
                k: Some(7),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            s,
            Shape::Gemm {
                m: 4096,
                n: 4096,
                k: 7
            }
        );
    }
}
