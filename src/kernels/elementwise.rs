//! ReLU and GELU over fp16 tensors (cuda/elementwise/), checked against float64.

use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, CheckPick, Dispatch, Family, ShapeKind};
use crate::results::schema::Shape;
use crate::roofline::{work, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::{compare, reference, Tolerance};
use anyhow::Result;
use half::f16;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The variant "best" means: v4 (one block per chunk, like the fastest copy); see
/// docs/perf-log.md.
pub const BEST: u32 = 4;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_elementwise_variant_count,
        ffi::rl_elementwise_variant_name,
        ffi::rl_elementwise_variant_summary,
    )
}

/// Elements checked against float64 at most (evenly strided beyond that; every element is
/// still checked for having been written).
pub const MAX_CHECKED: usize = 1 << 22;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Relu,
    /// 0 = tanh approximation, 1 = erf.
    Gelu(i32),
}

impl Op {
    pub fn kernel(&self) -> &'static str {
        match self {
            Op::Relu => "relu",
            Op::Gelu(0) => "gelu",
            Op::Gelu(_) => "gelu_erf",
        }
    }
}

pub struct ElementwiseCase {
    pub op: Op,
    pub elems: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<(DevBuf<f16>, DevBuf<f16>)>,
    /// A user's kernel run in place of ours (impl "user").
    user: Option<Arc<UserKernel>>,
}

impl ElementwiseCase {
    pub fn new(op: Op, elems: u64, variant: u32, seed: u64) -> Self {
        ElementwiseCase {
            op,
            elems,
            variant,
            seed,
            sets: Vec::new(),
            user: None,
        }
    }
    pub fn user(op: Op, elems: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        ElementwiseCase {
            user: Some(kernel),
            ..Self::new(op, elems, 0, seed)
        }
    }
}

impl BenchCase for ElementwiseCase {
    fn id(&self) -> CaseId {
        let shape = Shape::Elems { elems: self.elems };
        match &self.user {
            Some(u) => CaseId::new(self.op.kernel(), "user", &user::variant_label(u), shape),
            None => CaseId::new(
                self.op.kernel(),
                "ours",
                &format!("v{}", self.variant),
                shape,
            ),
        }
    }
    fn work(&self) -> Work {
        match self.op {
            Op::Relu => work::relu(self.elems),
            Op::Gelu(_) => work::gelu(self.elems),
        }
    }
    fn set_bytes(&self) -> u64 {
        self.work().bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets.clear();
        for s in 0..sets as u64 {
            // GELU's interesting range is a few units around zero; ReLU needs both signs.
            let x = DevBuf::random(
                gpu,
                self.elems as usize,
                self.seed + s,
                -6.0,
                6.0,
                "elementwise x",
            )?;
            let y = user::output(
                gpu,
                self.user.is_some(),
                self.elems as usize,
                "elementwise y",
            )?;
            self.sets.push((x, y));
        }
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let (x, y) = &self.sets[set];
        if let Some(u) = &self.user {
            let mut args = vec![
                Arg::Ptr(x.ptr(gpu)),
                Arg::Ptr(y.ptr(gpu)),
                Arg::U64(self.elems),
            ];
            if let Op::Gelu(kind) = self.op {
                args.push(Arg::I32(kind));
            }
            return u.launch(gpu, &Shape::Elems { elems: self.elems }, &args);
        }
        let (v, n, st) = (self.variant as i32, self.elems as usize, gpu.raw_stream());
        // SAFETY: x and y hold `elems` fp16 values each.
        let code = unsafe {
            match self.op {
                Op::Relu => ffi::rl_relu(v, x.ptr(gpu), y.ptr(gpu), n, st),
                Op::Gelu(kind) => ffi::rl_gelu(v, x.ptr(gpu), y.ptr(gpu), n, kind, st),
            }
        };
        gpu.check_launch(
            code,
            &format!("{} v{}", self.op.kernel(), self.variant),
            &format!("{} elems", self.elems),
        )
    }
    fn reseed(&mut self, seed: u64) -> u64 {
        std::mem::replace(&mut self.seed, seed)
    }
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification> {
        if self.sets.is_empty() {
            self.prepare(gpu, 1)?;
        }
        self.sets[0].1.poison(gpu)?;
        self.launch(gpu, 0)?;
        gpu.sync(&self.id().describe(), &format!("{} elems", self.elems))?;
        let (x, y) = (self.sets[0].0.download(gpu)?, self.sets[0].1.download(gpu)?);
        let stride = x.len().div_ceil(MAX_CHECKED).max(1);
        let xs: Vec<f16> = x.iter().step_by(stride).copied().collect();
        let ys: Vec<f16> = y.iter().step_by(stride).copied().collect();
        let r = match self.op {
            Op::Relu => reference::relu(&xs),
            Op::Gelu(kind) => reference::gelu_all(&xs, kind),
        };
        let cmp = compare::compare(&ys, &r, Tolerance::ELEMENTWISE);
        let unwritten = y
            .iter()
            .filter(|v| v.to_bits() == crate::gpu::POISON_F16)
            .count();
        let what = if stride == 1 {
            "float64 CPU".to_string()
        } else {
            format!("float64 CPU (every {stride}th element)")
        };
        let mut detail = cmp.summary(&what);
        if unwritten > 0 {
            detail += &format!(", {unwritten} elements never written in total");
        }
        let v = Verification {
            passed: cmp.passed && unwritten == 0,
            rel_err: cmp.rel_fro,
            detail,
        };
        user::with_guards(gpu, v, &[("y", &self.sets[0].1)])
    }
}

fn elems_of(s: &Shape) -> u64 {
    match *s {
        Shape::Elems { elems } => elems,
        _ => unreachable!("an elementwise family was given the shape {}", s.label()),
    }
}

/// Fixed sizes: one element, sizes below and across the 16-byte vector, and a large odd one.
fn check_sizes() -> Vec<Shape> {
    [1u64, 7, 9, 4099, (1 << 22) + 3]
        .into_iter()
        .map(|elems| Shape::Elems { elems })
        .collect()
}

fn random_size(rng: &mut ChaCha8Rng) -> Shape {
    let elems = if rng.gen_bool(0.5) {
        rng.gen_range(1..=4096)
    } else {
        rng.gen_range(1..=1 << 22)
    };
    Shape::Elems { elems }
}

const DISPATCH: &[Dispatch] = &[Dispatch {
    shapes: "every size",
    runs: "v4: one block per chunk of 16-byte vectors, scalar tail",
    why: "as the fastest copy: 95-99% of copy bandwidth from 16 MiB up",
}];

/// rl_relu's Rust type (bindgen'd from the public header into src/ffi.rs): what a ReLU
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type ReluLauncher =
    unsafe extern "C" fn(c_int, *const c_void, *mut c_void, usize, *mut c_void) -> c_int;

pub const RELU: Family = Family {
    name: "relu",
    aliases: &[],
    summary: "ReLU over fp16 elements",
    shape: ShapeKind::Elems { elems: 1 << 29 },
    references: &["float64 CPU"],
    tolerance: Tolerance::ELEMENTWISE,
    impls: &["ours"],
    default_impls: &["ours"],
    library: "",
    takes_gelu: false,
    variants,
    best,
    dispatch: DISPATCH,
    work: |s| work::relu(elems_of(s)),
    check_shapes: check_sizes,
    random_shape: random_size,
    check_cases: |s, vs, pick, _dtype| {
        let n = elems_of(s);
        per_variant(vs, |v| {
            Box::new(ElementwiseCase::new(Op::Relu, n, v, pick.seed_or(n)))
        })
    },
    bench_cases: |r| {
        let n = elems_of(&r.shape);
        Ok(per_variant(&r.variants, |v| {
            Box::new(ElementwiseCase::new(Op::Relu, n, v, r.seed))
        }))
    },
    sweeps: &["elementwise"],
    elementwise_point: Some(|bytes, seed| {
        Box::new(ElementwiseCase::new(Op::Relu, bytes / 2, best(), seed))
    }),
    user_params: &[
        p("const __half* x", Ptr),
        p("__half* y", Ptr),
        p("unsigned long long n", U64),
    ],
    user_case: |s, k, _, seed| Box::new(ElementwiseCase::user(Op::Relu, elems_of(s), k, seed)),
    plugin: LauncherAbi::of::<ReluLauncher>(
        ffi::rl_relu,
        "rl_relu",
        "int rl_relu(int variant, const void *x, void *y, size_t n, void *stream)",
        None,
    ),
    bf16: None,
};

/// rl_gelu's Rust type (bindgen'd from the public header into src/ffi.rs): what a GELU
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type GeluLauncher =
    unsafe extern "C" fn(c_int, *const c_void, *mut c_void, usize, c_int, *mut c_void) -> c_int;

/// GELU shares ReLU's shape, references, variants and dispatch (one kernel file, one variant
/// table); it differs in its work, its GELU form and its cases.
pub const GELU: Family = Family {
    name: "gelu",
    summary: "GELU over fp16 elements, tanh or erf form (records: gelu, gelu_erf)",
    takes_gelu: true,
    work: |s| work::gelu(elems_of(s)),
    check_cases: |s, vs, pick, _dtype| {
        let n = elems_of(s);
        match pick {
            CheckPick::Fixed => [0, 1]
                .into_iter()
                .flat_map(|kind| {
                    vs.iter()
                        .map(move |&v| Box::new(ElementwiseCase::new(Op::Gelu(kind), n, v, n)) as _)
                })
                .collect(),
            CheckPick::Random { i, seed } => {
                let op = Op::Gelu((i % 2) as i32);
                vec![Box::new(ElementwiseCase::new(op, n, vs[0], seed))]
            }
        }
    },
    bench_cases: |r| {
        let n = elems_of(&r.shape);
        Ok(per_variant(&r.variants, |v| {
            Box::new(ElementwiseCase::new(Op::Gelu(r.gelu), n, v, r.seed))
        }))
    },
    elementwise_point: Some(|bytes, seed| {
        Box::new(ElementwiseCase::new(Op::Gelu(0), bytes / 2, best(), seed))
    }),
    user_params: &[
        p("const __half* x", Ptr),
        p("__half* y", Ptr),
        p("unsigned long long n", U64),
        p("int gelu_kind", I32),
    ],
    user_case: |s, k, gelu, seed| {
        Box::new(ElementwiseCase::user(Op::Gelu(gelu), elems_of(s), k, seed))
    },
    plugin: LauncherAbi::of::<GeluLauncher>(
        ffi::rl_gelu,
        "rl_gelu",
        "int rl_gelu(int variant, const void *x, void *y, size_t n, int gelu_kind, void *stream)",
        None,
    ),
    ..RELU
};
