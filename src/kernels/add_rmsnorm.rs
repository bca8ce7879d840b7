//! Fused residual add + RMSNorm (cuda/add_rmsnorm/): h = x + r, y = RMSNorm(h) * w, fp16 in
//! and out, fp32 statistics; the decode-time op between every two blocks of a modern LLM.
//! This module is the whole family on the Rust side: its work model, its float64 reference,
//! its case and its registry entry.

use super::layernorm::{check_rows, random_rows, rows_of};
use crate::ffi;
use crate::gpu::{DevBuf, Gpu, POISON_F16};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, Dispatch, Family, ShapeKind};
use crate::results::schema::Shape;
use crate::roofline::{ComputeUnit, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::{compare, Tolerance};
use anyhow::Result;
use half::f16;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

pub const EPS: f32 = 1e-6;
/// Rows checked against float64 at most (evenly spread beyond that).
pub const MAX_CHECKED_ROWS: usize = 512;
/// FLOPs counted per element: the add, the square-accumulate (2), the two scalings.
pub const FLOPS_PER_ELEM: f64 = 5.0;

/// x, r and w read; y and h written, each once.
pub fn work(rows: u64, hidden: u64) -> Work {
    let (r, h) = (rows as f64, hidden as f64);
    Work {
        flops: FLOPS_PER_ELEM * r * h,
        bytes: 2.0 * (4.0 * r * h + h),
        unit: ComputeUnit::Fp32,
    }
}

/// The float64 reference: (h, y) for rows of `hidden`. h is the sum rounded to fp16, as the
/// kernel stores it; the statistics come from the unrounded sum and scale the stored h (as
/// vLLM's fused_add_rms_norm does).
pub fn reference(x: &[f16], r: &[f16], w: &[f16], hidden: usize, eps: f64) -> (Vec<f64>, Vec<f64>) {
    let mut h_out = Vec::with_capacity(x.len());
    let mut y_out = Vec::with_capacity(x.len());
    for (xr, rr) in x.chunks(hidden).zip(r.chunks(hidden)) {
        let sum: Vec<f64> = xr
            .iter()
            .zip(rr)
            .map(|(a, b)| a.to_f64() + b.to_f64())
            .collect();
        let ms = sum.iter().map(|v| v * v).sum::<f64>() / hidden as f64;
        let inv = 1.0 / (ms + eps).sqrt();
        for (i, s) in sum.iter().enumerate() {
            let h16 = f16::from_f64(*s).to_f64();
            h_out.push(h16);
            y_out.push(h16 * inv * w[i].to_f64());
        }
    }
    (h_out, y_out)
}

pub fn variants() -> Vec<(u32, String)> {
    super::variants::list(
        ffi::rl_add_rmsnorm_variant_count,
        ffi::rl_add_rmsnorm_variant_name,
    )
}

/// The fastest variant this build carries (the family has one).
pub fn best() -> u32 {
    super::variants::best_of(&variants(), 1)
}

struct Set {
    x: DevBuf<f16>,
    r: DevBuf<f16>,
    y: DevBuf<f16>,
    h: DevBuf<f16>,
}

pub struct AddRmsNormCase {
    pub rows: u64,
    pub hidden: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<Set>,
    w: Option<DevBuf<f16>>,
    /// A user's kernel run in place of ours (impl "user").
    user: Option<Arc<UserKernel>>,
}

impl AddRmsNormCase {
    pub fn new(rows: u64, hidden: u64, variant: u32, seed: u64) -> Self {
        AddRmsNormCase {
            rows,
            hidden,
            variant,
            seed,
            sets: Vec::new(),
            w: None,
            user: None,
        }
    }
    pub fn user(rows: u64, hidden: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        AddRmsNormCase {
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

/// The rows of `v` (rows of `h` values) at `picked`.
fn pick_rows(v: &[f16], h: usize, picked: &[usize]) -> Vec<f16> {
    picked
        .iter()
        .flat_map(|r| v[r * h..(r + 1) * h].iter().copied())
        .collect()
}

impl BenchCase for AddRmsNormCase {
    fn id(&self) -> CaseId {
        match &self.user {
            Some(u) => CaseId::new("add_rmsnorm", "user", &user::variant_label(u), self.shape()),
            None => CaseId::new(
                "add_rmsnorm",
                "ours",
                &format!("v{}", self.variant),
                self.shape(),
            ),
        }
    }
    fn work(&self) -> Work {
        work(self.rows, self.hidden)
    }
    fn set_bytes(&self) -> u64 {
        8 * self.rows * self.hidden
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        let n = (self.rows * self.hidden) as usize;
        self.sets.clear();
        for s in 0..sets as u64 {
            let seed = self.seed.wrapping_mul(3) + 2 * s;
            // An offset in x keeps the mean square away from the residual's alone, so a
            // kernel that drops either input is visibly wrong.
            self.sets.push(Set {
                x: DevBuf::random(gpu, n, seed, -1.0, 2.0, "add_rmsnorm x")?,
                r: DevBuf::random(gpu, n, seed + 1, -1.5, 1.5, "add_rmsnorm residual")?,
                y: user::output(gpu, self.user.is_some(), n, "add_rmsnorm y")?,
                h: user::output(gpu, self.user.is_some(), n, "add_rmsnorm h")?,
            });
        }
        let h = self.hidden as usize;
        self.w = Some(DevBuf::random(
            gpu,
            h,
            self.seed ^ 0x77,
            0.5,
            1.5,
            "add_rmsnorm w",
        )?);
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let s = &self.sets[set];
        let w = self.w.as_ref().expect("prepared");
        if let Some(u) = &self.user {
            let ptrs = [
                s.x.ptr(gpu),
                s.r.ptr(gpu),
                w.ptr(gpu),
                s.y.ptr(gpu),
                s.h.ptr(gpu),
            ];
            let (r, h) = (self.rows as i32, self.hidden as i32);
            let args = [
                &ptrs.map(Arg::Ptr)[..],
                &[Arg::I32(r), Arg::I32(h), Arg::F32(EPS)],
            ]
            .concat();
            return u.launch(gpu, &self.shape(), &args);
        }
        // SAFETY: x, r, y, h hold rows*hidden fp16 values, w hidden; y and h are distinct
        // buffers from x and r (the launcher's contract).
        let code = unsafe {
            ffi::rl_add_rmsnorm(
                self.variant as i32,
                s.x.ptr(gpu),
                s.r.ptr(gpu),
                w.ptr(gpu),
                s.y.ptr(gpu),
                s.h.ptr(gpu),
                self.rows as i32,
                self.hidden as i32,
                EPS,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(
            code,
            &format!("add_rmsnorm v{}", self.variant),
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
        self.sets[0].h.poison(gpu)?;
        self.launch(gpu, 0)?;
        gpu.sync(&self.id().describe(), &self.shape().label())?;
        let s = &self.sets[0];
        let (x, r, y, hs) = (
            s.x.download(gpu)?,
            s.r.download(gpu)?,
            s.y.download(gpu)?,
            s.h.download(gpu)?,
        );
        let w = self.w.as_ref().expect("prepared").download(gpu)?;
        let (rows, h) = (self.rows as usize, self.hidden as usize);
        let stride = rows.div_ceil(MAX_CHECKED_ROWS).max(1);
        let picked: Vec<usize> = (0..rows).step_by(stride).collect();
        let (ref_h, ref_y) = reference(
            &pick_rows(&x, h, &picked),
            &pick_rows(&r, h, &picked),
            &w,
            h,
            EPS as f64,
        );
        let cy = compare::compare(&pick_rows(&y, h, &picked), &ref_y, Tolerance::LAYERNORM);
        let ch = compare::compare(&pick_rows(&hs, h, &picked), &ref_h, Tolerance::ELEMENTWISE);
        let unwritten = y
            .iter()
            .chain(&hs)
            .filter(|v| v.to_bits() == POISON_F16)
            .count();
        let what = if stride == 1 {
            "float64 CPU".to_string()
        } else {
            format!("float64 CPU ({} sampled rows)", picked.len())
        };
        let mut detail = format!("y: {}; h: {}", cy.summary(&what), ch.summary(&what));
        if unwritten > 0 {
            detail += &format!(", {unwritten} elements of y and h never written in total");
        }
        let v = Verification {
            passed: cy.passed && ch.passed && unwritten == 0,
            rel_err: cy.rel_fro.max(ch.rel_fro),
            detail,
        };
        let s = &self.sets[0];
        user::with_guards(gpu, v, &[("y", &s.y), ("h", &s.h)])
    }
}

/// rl_add_rmsnorm's Rust type (bindgen'd from the public header into src/ffi.rs): what an add+RMSNorm
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *const c_void,
    *mut c_void,
    *mut c_void,
    c_int,
    c_int,
    f32,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "add_rmsnorm",
    aliases: &[],
    summary: "fused residual add + RMSNorm: h = x + r, y = RMSNorm(h) * w (fp16, fp32 \
              statistics; writes y and h)",
    shape: ShapeKind::Rows {
        rows: 32768,
        hidden: 4096,
    },
    references: &["float64 CPU (up to 512 sampled rows; y and h)"],
    tolerance: Tolerance::LAYERNORM,
    impls: &["ours"],
    default_impls: &["ours"],
    library: "",
    takes_gelu: false,
    variants,
    best,
    dispatch: &[Dispatch {
        shapes: "every shape",
        runs: "v1: the row in registers, 16-byte vectors where hidden % 8 == 0",
        why: "one pass over HBM: x and r read once, h and y written once",
    }],
    work: |s| {
        let (r, h) = rows_of(s);
        work(r, h)
    },
    check_shapes: check_rows,
    random_shape: random_rows,
    check_cases: |s, vs, pick, _dtype| {
        let (r, h) = rows_of(s);
        per_variant(vs, |v| {
            Box::new(AddRmsNormCase::new(r, h, v, pick.seed_or(r * 7 + h)))
        })
    },
    bench_cases: |req| {
        let (r, h) = rows_of(&req.shape);
        Ok(per_variant(&req.variants, |v| {
            Box::new(AddRmsNormCase::new(r, h, v, req.seed))
        }))
    },
    sweeps: &["elementwise"],
    elementwise_point: Some(|bytes, seed| {
        Box::new(AddRmsNormCase::new(bytes / 8192, 4096, best(), seed))
    }),
    user_params: &[
        p("const __half* x", Ptr),
        p("const __half* res", Ptr),
        p("const __half* w", Ptr),
        p("__half* y", Ptr),
        p("__half* h", Ptr),
        p("int rows", I32),
        p("int hidden", I32),
        p("float eps", F32),
    ],
    user_case: |s, k, _, seed| {
        let (r, h) = rows_of(s);
        Box::new(AddRmsNormCase::user(r, h, k, seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_add_rmsnorm,
        "rl_add_rmsnorm",
        "int rl_add_rmsnorm(int variant, const void *x, const void *res, const void *w, void *y, void *h, int rows, int hidden, float eps, void *stream)",
        None,
    ),
    bf16: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &[f32]) -> Vec<f16> {
        v.iter().map(|x| f16::from_f32(*x)).collect()
    }

    #[test]
    fn reference_normalizes_the_sum_by_its_root_mean_square() {
        let (x, r, w) = (
            h(&[1.0, 2.0, 3.0, 4.0]),
            h(&[1.0, 0.0, -1.0, -2.0]),
            h(&[1.0, 1.0, 2.0, 0.5]),
        );
        let (hs, y) = reference(&x, &r, &w, 4, 0.0);
        assert_eq!(hs, vec![2.0, 2.0, 2.0, 2.0]);
        // rms of (2, 2, 2, 2) is 2: y = h / 2 * w.
        assert_eq!(y, vec![1.0, 1.0, 2.0, 0.5]);
        // Two rows are normalized independently; an all-zero row stays zero (eps keeps it
        // finite).
        let (_, y2) = reference(
            &h(&[3.0, 4.0, 0.0, 0.0]),
            &h(&[0.0; 4]),
            &h(&[1.0; 4]),
            2,
            1e-6,
        );
        assert!((y2[0] - 3.0 / (12.5f64 + 1e-6).sqrt()).abs() < 1e-12);
        assert!(y2[2..].iter().all(|v| *v == 0.0));
    }

    #[test]
    fn work_counts_four_passes_and_the_weight() {
        let w = work(32768, 4096);
        assert_eq!(w.bytes, 2.0 * (4.0 * 32768.0 * 4096.0 + 4096.0));
        assert_eq!(w.flops, 5.0 * 32768.0 * 4096.0);
    }
}
