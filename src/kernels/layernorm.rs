//! LayerNorm forward over rows (cuda/layernorm/), checked against float64.

use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, random_dim, Dispatch, Family, ShapeKind};
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

pub const EPS: f32 = 1e-5;
/// Rows checked against float64 at most (evenly spread beyond that).
pub const MAX_CHECKED_ROWS: usize = 512;

/// The variant "best" means: v6 (v4 launched with programmatic dependent launch): v4's
/// kernel, with the next launch's blocks resident and waiting while one drains; 4096x4096 in
/// graph timing 18.3 vs 19.4 us on the H200, equal at 32768x4096 (docs/perf-log.md). Below
/// compute capability 9.0 it runs v4.
pub const BEST: u32 = 6;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_layernorm_variant_count,
        ffi::rl_layernorm_variant_name,
        ffi::rl_layernorm_variant_summary,
    )
}

struct LnSet {
    x: DevBuf<f16>,
    y: DevBuf<f16>,
}

pub struct LayerNormCase {
    pub rows: u64,
    pub hidden: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<LnSet>,
    gamma: Option<DevBuf<f16>>,
    beta: Option<DevBuf<f16>>,
    /// A user's kernel run in place of ours (impl "user").
    user: Option<Arc<UserKernel>>,
}

impl LayerNormCase {
    pub fn new(rows: u64, hidden: u64, variant: u32, seed: u64) -> Self {
        LayerNormCase {
            rows,
            hidden,
            variant,
            seed,
            sets: Vec::new(),
            gamma: None,
            beta: None,
            user: None,
        }
    }
    pub fn user(rows: u64, hidden: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        LayerNormCase {
            user: Some(kernel),
            ..Self::new(rows, hidden, 0, seed)
        }
    }
    fn shape(&self) -> Shape {
        Shape::Rows {
            rows: self.rows,
            hidden: self.hidden,
        }
    }
}

impl BenchCase for LayerNormCase {
    fn id(&self) -> CaseId {
        match &self.user {
            Some(u) => CaseId::new("layernorm", "user", &user::variant_label(u), self.shape()),
            None => CaseId::new(
                "layernorm",
                "ours",
                &format!("v{}", self.variant),
                self.shape(),
            ),
        }
    }
    fn work(&self) -> Work {
        work::layernorm(self.rows, self.hidden)
    }
    fn set_bytes(&self) -> u64 {
        4 * self.rows * self.hidden
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        let n = (self.rows * self.hidden) as usize;
        self.sets.clear();
        for s in 0..sets as u64 {
            // An offset mean makes a wrong mean subtraction visible.
            let x = DevBuf::random(gpu, n, self.seed + s, -1.0, 3.0, "LayerNorm x")?;
            self.sets.push(LnSet {
                x,
                y: user::output(gpu, self.user.is_some(), n, "LayerNorm y")?,
            });
        }
        let h = self.hidden as usize;
        self.gamma = Some(DevBuf::random(gpu, h, self.seed ^ 0x9a, 0.5, 1.5, "gamma")?);
        self.beta = Some(DevBuf::random(gpu, h, self.seed ^ 0xbe, -0.5, 0.5, "beta")?);
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let s = &self.sets[set];
        let (g, b) = (
            self.gamma.as_ref().expect("prepared"),
            self.beta.as_ref().expect("prepared"),
        );
        if let Some(u) = &self.user {
            let (r, h) = (self.rows as i32, self.hidden as i32);
            let args = [s.x.ptr(gpu), g.ptr(gpu), b.ptr(gpu), s.y.ptr(gpu)].map(Arg::Ptr);
            let args = [&args[..], &[Arg::I32(r), Arg::I32(h), Arg::F32(EPS)]].concat();
            return u.launch(gpu, &self.shape(), &args);
        }
        // SAFETY: x, y rows*hidden, gamma and beta hidden fp16 values.
        let code = unsafe {
            ffi::rl_layernorm(
                self.variant as i32,
                s.x.ptr(gpu),
                g.ptr(gpu),
                b.ptr(gpu),
                s.y.ptr(gpu),
                self.rows as i32,
                self.hidden as i32,
                EPS,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(
            code,
            &format!("layernorm v{}", self.variant),
            &self.shape().label(),
        )
    }
    fn reseed(&mut self, seed: u64) -> u64 {
        std::mem::replace(&mut self.seed, seed)
    }
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification> {
        if self.sets.is_empty() {
            self.prepare(gpu, 1)?;
        }
        self.sets[0].y.poison(gpu)?;
        self.launch(gpu, 0)?;
        gpu.sync(&self.id().describe(), &self.shape().label())?;
        let h = self.hidden as usize;
        let (x, y) = (self.sets[0].x.download(gpu)?, self.sets[0].y.download(gpu)?);
        let (g, b) = (
            self.gamma.as_ref().unwrap().download(gpu)?,
            self.beta.as_ref().unwrap().download(gpu)?,
        );
        let rows = self.rows as usize;
        let stride = rows.div_ceil(MAX_CHECKED_ROWS).max(1);
        let picked: Vec<usize> = (0..rows).step_by(stride).collect();
        let xs: Vec<f16> = picked
            .iter()
            .flat_map(|r| x[r * h..(r + 1) * h].iter().copied())
            .collect();
        let ys: Vec<f16> = picked
            .iter()
            .flat_map(|r| y[r * h..(r + 1) * h].iter().copied())
            .collect();
        let r = reference::layernorm(&xs, &g, &b, h, EPS as f64);
        let cmp = compare::compare(&ys, &r, Tolerance::LAYERNORM);
        let unwritten = y
            .iter()
            .filter(|v| v.to_bits() == crate::gpu::POISON_F16)
            .count();
        let what = if stride == 1 {
            "float64 CPU".to_string()
        } else {
            format!("float64 CPU ({} sampled rows)", picked.len())
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
        user::with_guards(gpu, v, &[("y", &self.sets[0].y)])
    }
}

/// (rows, hidden) of a row-kind shape; the registry hands a family only its own kind.
pub fn rows_of(s: &Shape) -> (u64, u64) {
    match *s {
        Shape::Rows { rows, hidden } => (rows, hidden),
        _ => unreachable!("a row-wise family was given the shape {}", s.label()),
    }
}

/// Fixed row shapes for the row-wise families: one element, hidden sizes below, at and off
/// the vector width and the register path's limits (768 ... 16384, 16385).
pub fn check_rows() -> Vec<Shape> {
    [
        (1, 1),
        (3, 7),
        (5, 768),
        (2, 1030),
        (64, 4096),
        (9, 4099),
        (2, 16384),
        (1, 16385),
    ]
    .into_iter()
    .map(|(rows, hidden)| Shape::Rows { rows, hidden })
    .collect()
}

pub fn random_rows(rng: &mut ChaCha8Rng) -> Shape {
    Shape::Rows {
        rows: rng.gen_range(1..=64),
        hidden: random_dim(rng, 16384),
    }
}

/// rl_layernorm's Rust type (bindgen'd from the public header into src/ffi.rs): what a LayerNorm
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    f32,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "layernorm",
    aliases: &[],
    summary: "LayerNorm forward over rows (fp16 in/out, fp32 statistics)",
    shape: ShapeKind::Rows {
        rows: 32768,
        hidden: 4096,
    },
    references: &["float64 CPU (up to 512 sampled rows)"],
    tolerance: Tolerance::LAYERNORM,
    impls: &["ours"],
    default_impls: &["ours"],
    library: "",
    takes_gelu: false,
    variants,
    best,
    dispatch: &[Dispatch {
        shapes: "every shape (sm_90); v4 below compute capability 9.0",
        runs: "v6: the row in registers, 16-byte vectors, programmatic dependent launch",
        why: "one pass over HBM; the next launch's blocks wait resident while one drains",
    }],
    work: |s| {
        let (r, h) = rows_of(s);
        work::layernorm(r, h)
    },
    check_shapes: check_rows,
    random_shape: random_rows,
    check_cases: |s, vs, pick, _dtype| {
        let (r, h) = rows_of(s);
        per_variant(vs, |v| {
            Box::new(LayerNormCase::new(r, h, v, pick.seed_or(r + h)))
        })
    },
    bench_cases: |req| {
        let (r, h) = rows_of(&req.shape);
        Ok(per_variant(&req.variants, |v| {
            Box::new(LayerNormCase::new(r, h, v, req.seed))
        }))
    },
    sweeps: &["elementwise"],
    elementwise_point: Some(|bytes, seed| {
        Box::new(LayerNormCase::new(bytes / 8192, 4096, best(), seed))
    }),
    user_params: &[
        p("const __half* x", Ptr),
        p("const __half* gamma", Ptr),
        p("const __half* beta", Ptr),
        p("__half* y", Ptr),
        p("int rows", I32),
        p("int hidden", I32),
        p("float eps", F32),
    ],
    user_case: |s, k, _, seed| {
        let (r, h) = rows_of(s);
        Box::new(LayerNormCase::user(r, h, k, seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_layernorm,
        "rl_layernorm",
        "int rl_layernorm(int variant, const void *x, const void *gamma, const void *beta, void *y, int rows, int hidden, float eps, void *stream)",
        None,
    ),
    bf16: None,
};
