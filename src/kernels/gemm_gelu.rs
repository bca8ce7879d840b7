//! GEMM + bias + GELU: our fused kernel (epilogue in registers), our GEMM followed by a
//! separate bias+GELU kernel (one more HBM round trip), cuBLAS followed by the same kernel,
//! and cuBLASLt's GELU_BIAS epilogue. All do the same work (one work model).

use super::cublas_gemm::{gemm_row_major, gemm_shape, random_bias, Dtype, GemmSet};
use super::cublaslt::{LtEpilogue, LtPlan};
use super::gemm::{self, hgemm_case, launch_hgemm};
use crate::dtype::Elem;
use crate::error::usage;
use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{Bf16Forms, CheckPick, Dispatch, Family, ShapeKind};
use crate::roofline::{work, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::gemm as check;
use crate::verify::reference::Epilogue;
use crate::verify::Tolerance;
use anyhow::{bail, Result};
use half::{bf16, f16};
use std::ffi::{c_int, c_void};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeluImpl {
    /// Our fused kernel, variant n.
    Fused(u32),
    /// Our HGEMM variant n (an HGEMM number), then rl_bias_gelu.
    Unfused(u32),
    /// cuBLAS, then rl_bias_gelu.
    UnfusedCublas,
    /// cuBLASLt with the GELU_BIAS epilogue (tanh GELU only).
    Cublaslt,
}

impl GeluImpl {
    pub fn impl_name(&self) -> &'static str {
        match self {
            GeluImpl::Fused(_) => "ours",
            GeluImpl::Unfused(_) => "unfused",
            GeluImpl::UnfusedCublas => "unfused_cublas",
            GeluImpl::Cublaslt => "cublaslt",
        }
    }
    pub fn variant(&self) -> String {
        match self {
            GeluImpl::Fused(v) | GeluImpl::Unfused(v) => format!("v{v}"),
            _ => String::new(),
        }
    }
}

/// The variant "best" means: v24 "epilogue_warps_wide_only"
/// (cuda/gemm/gemm_bias_gelu_24_epilogue_warps_wide_only.cuh): HGEMM v32's kernels (its plain
/// twin) with bias and GELU applied before the store on every M path, the warp-specialized
/// kernel's bias read into registers at each tile's start (v21); at the 192- and 256-wide tiles
/// the GELU of each tile's first part but a CTA's last applied and stored by the producer
/// warpgroup's idle warps under the next main loop (v23). docs/perf-log.md has the figures.
pub const BEST: u32 = 24;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

/// (number, "name: summary") of every fused variant.
pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_gemm_bias_gelu_variant_count,
        ffi::rl_gemm_bias_gelu_variant_name,
        ffi::rl_gemm_bias_gelu_variant_summary,
    )
}

/// The fused variants with a bf16 form (cuda/gemm/gemm_bias_gelu.cu's bf16 column; the tests
/// hold the table to it): best (v24), v15, v16 and v20-v23 (steps before it), v25 (the step
/// after it), v14, v13, v11, v7 and v12.
pub const BF16_FORMS: [u32; 13] = [7, 11, 12, 13, 14, 15, 16, 20, 21, 22, 23, 24, 25];

/// Whether fused variant `v` has a bf16 form (its table's bf16 column: BF16_FORMS).
pub fn takes_bf16(v: u32) -> bool {
    // SAFETY: takes and returns an int; 0 out of range.
    unsafe { ffi::rl_gemm_bias_gelu_variant_bf16(v as i32) == 1 }
}

/// The HGEMM variant whose kernels fused variant `v` runs (its plain twin): what the unfused
/// pair and the plain GEMM beside it run, so that the three compare one main loop.
pub fn plain_variant(v: u32) -> u32 {
    super::variants::plain_twin(ffi::rl_gemm_bias_gelu_plain_variant, v)
}

pub fn gelu_name(kind: i32) -> &'static str {
    if kind == 0 {
        "tanh"
    } else {
        "erf"
    }
}

struct GeluSet<E: Elem> {
    g: GemmSet<E>,
    bias: DevBuf<E>,
}

/// One implementation of GEMM+bias+GELU at one shape, in E's dtype (fp16; bf16 for the fused
/// variants with a bf16 form and cuBLASLt: the unfused pair's bias+GELU kernel is fp16 only).
pub struct GemmGeluCase<E: Elem = f16> {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub imp: GeluImpl,
    /// 0 = tanh approximation, 1 = erf.
    pub gelu_kind: i32,
    pub seed: u64,
    sets: Vec<GeluSet<E>>,
    lt: Option<LtPlan>,
    /// A user's kernel run in place of ours (impl "user"; fp16 only).
    user: Option<Arc<UserKernel>>,
}

/// `imp` at (m, n, k) with GELU form `kind` in `dtype`, boxed (the dtype's case type).
pub fn gemm_gelu_case(
    (m, n, k): (u64, u64, u64),
    imp: GeluImpl,
    kind: i32,
    seed: u64,
    dtype: Dtype,
) -> Box<dyn BenchCase> {
    match dtype {
        Dtype::F16 => Box::new(GemmGeluCase::<f16>::typed(m, n, k, imp, kind, seed)),
        Dtype::Bf16 => Box::new(GemmGeluCase::<bf16>::typed(m, n, k, imp, kind, seed)),
    }
}

impl<E: Elem> GemmGeluCase<E> {
    /// `imp` at (m, n, k) in E's dtype.
    pub fn typed(m: u64, n: u64, k: u64, imp: GeluImpl, gelu_kind: i32, seed: u64) -> Self {
        GemmGeluCase {
            m,
            n,
            k,
            imp,
            gelu_kind,
            seed,
            sets: Vec::new(),
            lt: None,
            user: None,
        }
    }

    fn bias_gelu(&self, gpu: &Gpu, s: &GeluSet<E>) -> Result<()> {
        if E::DTYPE != Dtype::F16 {
            bail!("the unfused bias+GELU kernel (rl_bias_gelu) runs in fp16 only");
        }
        let c = s.g.c.ptr(gpu);
        // SAFETY: C holds m*n, bias n fp16 elements (checked above); in place is allowed by the
        // contract.
        let code = unsafe {
            ffi::rl_bias_gelu(
                c,
                s.bias.ptr(gpu),
                c,
                self.m as i32,
                self.n as i32,
                self.gelu_kind,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(code, "bias_gelu", &gemm_shape(self.m, self.n, 1).label())
    }
}

impl GemmGeluCase {
    /// The fp16 case.
    pub fn new(m: u64, n: u64, k: u64, imp: GeluImpl, gelu_kind: i32, seed: u64) -> Self {
        Self::typed(m, n, k, imp, gelu_kind, seed)
    }
    pub fn user(
        m: u64,
        n: u64,
        k: u64,
        kernel: Arc<UserKernel>,
        gelu_kind: i32,
        seed: u64,
    ) -> Self {
        GemmGeluCase {
            user: Some(kernel),
            ..Self::new(m, n, k, GeluImpl::Fused(0), gelu_kind, seed)
        }
    }
}

impl<E: Elem> BenchCase for GemmGeluCase<E> {
    fn id(&self) -> CaseId {
        let mut id = CaseId::new(
            "gemm_bias_gelu",
            self.imp.impl_name(),
            &self.imp.variant(),
            gemm_shape(self.m, self.n, self.k),
        );
        if self.gelu_kind != 0 {
            id.kernel = format!("gemm_bias_gelu_{}", gelu_name(self.gelu_kind));
        }
        if let Some(u) = &self.user {
            id.impl_ = "user".into();
            id.variant = user::variant_label(u);
        }
        id.dtype = E::DTYPE.name().into();
        id
    }
    fn work(&self) -> Work {
        work::gemm_bias_gelu(self.m, self.n, self.k)
    }
    fn set_bytes(&self) -> u64 {
        self.work().bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets.clear();
        for s in 0..sets as u64 {
            let seed = self.seed + s;
            let g = GemmSet::for_case(gpu, self.m, self.n, self.k, seed, self.user.is_some())?;
            let bias = random_bias(gpu, self.n, seed)?;
            self.sets.push(GeluSet { g, bias });
        }
        if self.imp == GeluImpl::Cublaslt && self.lt.is_none() {
            let shape = (self.m, self.n, self.k);
            self.lt = Some(LtPlan::new(gpu, shape, LtEpilogue::GeluBias, E::DTYPE)?);
        }
        // One eager launch: one-time kernel attributes stay out of any graph capture.
        self.launch(gpu, 0)
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let s = &self.sets[set];
        let (m, n, k) = (self.m, self.n, self.k);
        if let Some(u) = &self.user {
            let args = [
                Arg::Ptr(s.g.a.ptr(gpu)),
                Arg::Ptr(s.g.b.ptr(gpu)),
                Arg::Ptr(s.bias.ptr(gpu)),
                Arg::Ptr(s.g.c.ptr(gpu)),
                Arg::I32(m as i32),
                Arg::I32(n as i32),
                Arg::I32(k as i32),
                Arg::I32(self.gelu_kind),
            ];
            return u.launch(gpu, &gemm_shape(m, n, k), &args);
        }
        match self.imp {
            GeluImpl::Fused(v) => {
                let launcher = match E::DTYPE {
                    Dtype::F16 => ffi::rl_gemm_bias_gelu,
                    Dtype::Bf16 => ffi::rl_gemm_bias_gelu_bf16,
                };
                // SAFETY: buffers sized for (m, n, k) in prepare(), of E; the launcher refuses
                // a variant without a form in E's dtype.
                let code = unsafe {
                    launcher(
                        v as i32,
                        s.g.a.ptr(gpu),
                        s.g.b.ptr(gpu),
                        s.bias.ptr(gpu),
                        s.g.c.ptr(gpu),
                        m as i32,
                        n as i32,
                        k as i32,
                        self.gelu_kind,
                        gpu.raw_stream(),
                    )
                };
                gpu.check_launch(
                    code,
                    &format!("gemm_bias_gelu v{v}{}", E::DTYPE.suffix()),
                    &gemm_shape(m, n, k).label(),
                )
            }
            GeluImpl::Unfused(v) => {
                launch_hgemm(gpu, v, &s.g, m, n, k)?;
                self.bias_gelu(gpu, s)
            }
            GeluImpl::UnfusedCublas => {
                // SAFETY: buffers sized for (m, n, k) in prepare().
                unsafe {
                    gemm_row_major(
                        gpu,
                        E::DTYPE,
                        s.g.a.ptr(gpu),
                        s.g.b.ptr(gpu),
                        s.g.c.ptr(gpu),
                        m as usize,
                        n as usize,
                        k as usize,
                    )?
                };
                self.bias_gelu(gpu, s)
            }
            GeluImpl::Cublaslt => {
                let plan = self.lt.as_ref().expect("plan made in prepare");
                // SAFETY: buffers sized for the plan's shape in prepare().
                unsafe {
                    plan.launch(
                        gpu,
                        s.g.a.ptr(gpu),
                        s.g.b.ptr(gpu),
                        s.bias.ptr(gpu),
                        std::ptr::null(),
                        s.g.c.ptr(gpu),
                    )
                }
            }
        }
    }
    fn reseed(&mut self, seed: u64) -> u64 {
        std::mem::replace(&mut self.seed, seed)
    }
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification> {
        if self.sets.is_empty() {
            self.prepare(gpu, 1)?;
        }
        let (m, n, k) = (self.m, self.n, self.k);
        self.sets[0].g.c.poison(gpu)?;
        self.launch(gpu, 0)?;
        gpu.sync(&self.id().describe(), &gemm_shape(m, n, k).label())?;
        let s = &self.sets[0];
        let tol = if matches!(self.imp, GeluImpl::Cublaslt) {
            Tolerance::library(E::DTYPE)
        } else {
            Tolerance::gemm(E::DTYPE)
        };
        let v = check::check_against_cpu(
            gpu,
            &s.g.a,
            &s.g.b,
            &s.g.c,
            Epilogue::BiasGelu {
                bias: &s.bias,
                kind: self.gelu_kind,
            },
            m,
            n,
            k,
            tol,
        )?;
        user::with_guards(gpu, v, &[("C", &s.g.c)])
    }
}

/// rl_gemm_bias_gelu's Rust type (bindgen'd from the public header into src/ffi.rs): what a GEMM+bias+GELU
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "gemm_bias_gelu",
    aliases: &["gemm-gelu"],
    summary: "GEMM + bias + GELU: fused (epilogue in registers), unfused, plain GEMM, cuBLAS + \
              our epilogue, cuBLASLt's GELU_BIAS epilogue",
    shape: ShapeKind::Gemm {
        m: 4096,
        n: 4096,
        k: 4096,
    },
    references: &[
        "cuBLAS GEMM + float64 bias and GELU",
        "float64 CPU (sampled rows)",
    ],
    tolerance: Tolerance::GEMM,
    impls: &["fused", "unfused", "plain", "unfused_cublas", "cublaslt"],
    default_impls: &["fused", "unfused", "cublaslt"],
    library: "cublaslt",
    takes_gelu: true,
    variants,
    best,
    dispatch: &[
        Dispatch {
            shapes: "where hgemm v32 runs its warp-specialized kernel (a width per shape)",
            runs: "HGEMM v32's kernel with the bias + GELU functor in the consumers' registers, \
                   the tile's bias loaded into registers at its start (v21), the tile stored by \
                   TMA (the 128x256 tile in halves, the second in the ring); at the 192- and \
                   256-wide tiles the first part's GELU and store, for each tile but a CTA's \
                   last, by the producer warpgroup's three idle warps (v23)",
            why: "the plain GEMM's kernel with one more functor (v7 on HGEMM v14: 0.97x \
                  cuBLASLt's GELU_BIAS at 4096^3; 1.04x / 1.09x our plain GEMM at 4096^3 / \
                  2048^3, S35a); v20 9% faster than v15 at 256x4096^2, 3% at 2048^3 (S46a, \
                  H100); v21 0.5-4.8% faster than v20 in 15 of 18 interleaved pairs, the other \
                  3 within noise (S46b/c/f, H200); v23 0.7-1.4% faster than v21 at the 192- and \
                  256-wide tiles' shapes, 0.4-5% slower at the 128- and 64-wide (S48a/b/d, H100)",
        },
        Dispatch {
            shapes: "every other M",
            runs: "HGEMM v11's paths (see hgemm) with bias + GELU before the store: the slabs \
                   and the few-row tile take it as a run-time descriptor (one kernel with the \
                   plain GEMM), the tiles as a functor",
            why: "one main loop per M path: the fused epilogue costs 1-3% over our plain GEMM",
        },
        Dispatch {
            shapes: "WMMA tiles of 128x256 / 256x128",
            runs: "the warp tile parked in shared memory, bias + GELU on the way out; tanh: in \
                   4 row parts",
            why: "at one wave of tiles the epilogue is exposed; parts overlap parking and stores",
        },
        Dispatch {
            shapes: "whole tiles of 256x128",
            runs: "the lean loop with its last k-step's stage offset opaque (fused form)",
            why: "keeps the copies' source registers apart at 255 registers (VK: -2.3% at 4096^3)",
        },
        Dispatch {
            shapes: "bf16 (--dtype bf16: v7, v11-v16 and v20-v25, as HGEMM v14, v18, v19, \
                     v21-v24 and v32)",
            runs: "hgemm's bf16 paths (that variant's warp-specialized kernels, else v12's, \
                   else v9's tile at any M, else v1's) with the functor in bf16, the bias in \
                   bf16",
            why: "the fp16 kernels' bf16 forms (figures: docs/perf-log.md)",
        },
    ],
    work: |s| {
        let (m, n, k) = gemm::dims(s);
        work::gemm_bias_gelu(m, n, k)
    },
    check_shapes: gemm::epilogue_check_shapes,
    random_shape: gemm::random_gemm_shape,
    check_cases: |s, vs, pick, dtype| {
        let (m, n, k) = gemm::dims(s);
        let case = |imp, kind, seed| gemm_gelu_case((m, n, k), imp, kind, seed, dtype);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        match pick {
            CheckPick::Random { i, seed } => {
                out.push(case(GeluImpl::Fused(vs[0]), (i % 2) as i32, seed));
            }
            CheckPick::Fixed => {
                for kind in [0, 1] {
                    for &v in vs {
                        out.push(case(GeluImpl::Fused(v), kind, m + k));
                    }
                    // The unfused pair's bias+GELU kernel is fp16 only.
                    if dtype == Dtype::F16 {
                        out.push(case(GeluImpl::Unfused(gemm::best()), kind, m));
                        out.push(case(GeluImpl::UnfusedCublas, kind, k));
                    }
                }
                out.push(case(GeluImpl::Cublaslt, 0, n));
            }
        }
        out
    },
    bench_cases: |r| {
        let (m, n, k) = gemm::dims(&r.shape);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        for imp in &r.impls {
            let imps: Vec<GeluImpl> = match imp.as_str() {
                // The plain GEMM and the unfused pair run each fused variant's plain twin.
                "plain" => {
                    for &v in &r.variants {
                        let p = plain_variant(v);
                        out.push(hgemm_case(m, n, k, p, r.seed, r.dtype));
                    }
                    continue;
                }
                "fused" => r.variants.iter().map(|v| GeluImpl::Fused(*v)).collect(),
                "unfused" => r
                    .variants
                    .iter()
                    .map(|v| GeluImpl::Unfused(plain_variant(*v)))
                    .collect(),
                "unfused_cublas" => vec![GeluImpl::UnfusedCublas],
                _ if r.gelu != 0 => {
                    return Err(usage(
                        "cuBLASLt's GELU epilogue is the tanh form: use --gelu tanh, or drop \
                         cublaslt from --impl",
                    ))
                }
                _ => vec![GeluImpl::Cublaslt],
            };
            for i in imps {
                out.push(gemm_gelu_case((m, n, k), i, r.gelu, r.seed, r.dtype));
            }
        }
        Ok(out)
    },
    sweeps: &["fusion"],
    elementwise_point: None,
    user_params: &[
        p("const __half* A", Ptr),
        p("const __half* B", Ptr),
        p("const __half* bias", Ptr),
        p("__half* C", Ptr),
        p("int M", I32),
        p("int N", I32),
        p("int K", I32),
        p("int gelu_kind", I32),
    ],
    user_case: |s, k, gelu, seed| {
        let (m, n, kk) = gemm::dims(s);
        Box::new(GemmGeluCase::user(m, n, kk, k, gelu, seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_gemm_bias_gelu,
        "rl_gemm_bias_gelu",
        "int rl_gemm_bias_gelu(int variant, const void *A, const void *B, const void *bias, void *C, int M, int N, int K, int gelu_kind, void *stream)",
        None,
    ),
    // The unfused pair's bias+GELU kernel (rl_bias_gelu) is fp16 only: no unfused forms.
    bf16: Some(Bf16Forms {
        variant: takes_bf16,
        impls: &["fused", "plain", "cublaslt"],
    }),
};

#[cfg(test)]
mod tests {
    use crate::ffi;
    use crate::verify::reference::gelu;

    /// The erf-form GELU of the fused tile epilogues (cuda/gelu.cuh, rl_gelu_erf_fast), evaluated
    /// on the host with an exact exp2: its polynomial against the float64 x Phi(x).
    fn fast_erf_gelu(x: f32) -> f32 {
        // SAFETY: a pure host function of one float.
        unsafe { ffi::rl_gelu_erf_fast_host(x) }
    }

    #[test]
    fn fused_erf_form_matches_float64_everywhere() {
        let mut worst = (0.0f64, 0.0f32);
        for i in -120_000..=120_000 {
            let x = i as f32 * 1e-4; // -12 .. 12 in steps of 1e-4
            let err =
                (fast_erf_gelu(x) as f64 - gelu(x as f64, 1)).abs() / f64::max(1.0, x.abs() as f64);
            if err > worst.0 {
                worst = (err, x);
            }
        }
        assert!(worst.0 <= 3e-7, "error {:.3e} at x = {}", worst.0, worst.1);
    }

    #[test]
    fn fused_erf_form_has_gelus_limits() {
        assert_eq!(fast_erf_gelu(0.0), 0.0);
        for x in [30.0f32, 1e3, 6e4] {
            assert_eq!(fast_erf_gelu(x), x, "gelu({x}) = {x}");
            assert_eq!(fast_erf_gelu(-x), 0.0, "gelu(-{x}) = 0");
        }
        assert!(fast_erf_gelu(f32::NAN).is_nan());
    }
}
