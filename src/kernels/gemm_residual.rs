//! GEMM + bias + residual (cuda/gemm/gemm_residual.cu): C = A.B + bias[N] + R[M x N], the output
//! projection of a transformer block with its residual connection. Ours is one epilogue functor
//! (cuda/gemm/bias_residual_epilogue.cuh) run on every M path of HGEMM's ladder; the library's
//! is cuBLASLt's BIAS epilogue on an input C holding R with beta = 1 (D = A.B + R + bias in one
//! call: the same math). This module is the whole family on the Rust side: its work model, its
//! case and its registry entry (the float64 reference is the GEMM family's, with this epilogue).

use super::cublas_gemm::{gemm_shape, random_bias, Dtype, GemmSet};
use super::cublaslt::{LtEpilogue, LtPlan};
use super::gemm::{self, hgemm_case};
use crate::dtype::Elem;
use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{Bf16Forms, CheckPick, Dispatch, Family, ShapeKind};
use crate::roofline::work::{self, F16};
use crate::roofline::{ComputeUnit, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::gemm as check;
use crate::verify::reference::Epilogue;
use crate::verify::Tolerance;
use anyhow::Result;
use half::{bf16, f16};
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The variant "best" means: v11 "staged_residual", HGEMM v14's kernels (its plain twin) with
/// bias and residual added before the store on every M path, R staged in shared memory where
/// the warp-specialized kernel runs (v7 reads it per element there).
pub const BEST: u32 = 11;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

/// (number, "name: summary") of every variant.
pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_gemm_residual_variant_count,
        ffi::rl_gemm_residual_variant_name,
        ffi::rl_gemm_residual_variant_summary,
    )
}

/// Whether variant `v` has a bf16 form (its table's bf16 column: v11 alone).
pub fn takes_bf16(v: u32) -> bool {
    // SAFETY: takes and returns an int; 0 out of range.
    unsafe { ffi::rl_gemm_residual_variant_bf16(v as i32) == 1 }
}

/// The HGEMM variant whose kernels variant `v` runs (its plain twin): the plain GEMM beside it.
pub fn plain_variant(v: u32) -> u32 {
    super::variants::plain_twin(ffi::rl_gemm_residual_plain_variant, v)
}

/// The GEMM, plus an add of the bias and one of the residual per output (2mn FLOPs); A, B, the
/// bias and R read once, C written once (2 bytes each in fp16 and bf16 alike).
pub fn work(m: u64, n: u64, k: u64) -> Work {
    let g = work::gemm(m, n, k);
    let (n, mn) = (n as f64, m as f64 * n as f64);
    Work {
        flops: g.flops + 2.0 * mn,
        bytes: g.bytes + F16 * (n + mn),
        unit: ComputeUnit::Tensor,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResidualImpl {
    /// Our variant n.
    Ours(u32),
    /// cuBLASLt, BIAS epilogue, beta = 1 on C = R.
    Cublaslt,
}

struct Set<E: Elem> {
    g: GemmSet<E>,
    bias: DevBuf<E>,
    residual: DevBuf<E>,
}

/// One implementation of GEMM+bias+residual at one shape, in E's dtype (fp16; bf16 for the
/// variants with a bf16 form and cuBLASLt, with the bias and R in bf16 too).
pub struct GemmResidualCase<E: Elem = f16> {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub imp: ResidualImpl,
    pub seed: u64,
    sets: Vec<Set<E>>,
    /// The library's plan: its implementation, and every other's reference.
    lt: Option<LtPlan>,
    /// A user's kernel run in place of ours (impl "user"; fp16 only).
    user: Option<Arc<UserKernel>>,
}

/// `imp` at (m, n, k) in `dtype`, boxed (the dtype's case type).
pub fn residual_case(
    (m, n, k): (u64, u64, u64),
    imp: ResidualImpl,
    seed: u64,
    dtype: Dtype,
) -> Box<dyn BenchCase> {
    match dtype {
        Dtype::F16 => Box::new(GemmResidualCase::<f16>::typed(m, n, k, imp, seed)),
        Dtype::Bf16 => Box::new(GemmResidualCase::<bf16>::typed(m, n, k, imp, seed)),
    }
}

impl GemmResidualCase {
    /// The fp16 case.
    pub fn new(m: u64, n: u64, k: u64, imp: ResidualImpl, seed: u64) -> Self {
        Self::typed(m, n, k, imp, seed)
    }
    pub fn user(m: u64, n: u64, k: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        GemmResidualCase {
            user: Some(kernel),
            ..Self::new(m, n, k, ResidualImpl::Ours(0), seed)
        }
    }
}

impl<E: Elem> GemmResidualCase<E> {
    /// `imp` at (m, n, k) in E's dtype.
    pub fn typed(m: u64, n: u64, k: u64, imp: ResidualImpl, seed: u64) -> Self {
        GemmResidualCase {
            m,
            n,
            k,
            imp,
            seed,
            sets: Vec::new(),
            lt: None,
            user: None,
        }
    }

    /// Makes the cuBLASLt plan once (cuBLASLt picks its algorithm per shape and dtype).
    fn ensure_plan(&mut self, gpu: &Gpu) -> Result<()> {
        if self.lt.is_none() {
            let shape = (self.m, self.n, self.k);
            let plan = LtPlan::new(gpu, shape, LtEpilogue::BiasResidual, E::DTYPE)?;
            self.lt = Some(plan);
        }
        Ok(())
    }

    /// cuBLASLt's result for set 0 in a fresh buffer (the library reference).
    fn library_reference(&mut self, gpu: &Gpu) -> Result<DevBuf<E>> {
        let out = DevBuf::<E>::poisoned(gpu, (self.m * self.n) as usize, "cuBLASLt reference")?;
        self.ensure_plan(gpu)?;
        let (s, plan) = (&self.sets[0], self.lt.as_ref().expect("made above"));
        // SAFETY: the set's buffers and `out` are sized for the plan's shape.
        unsafe {
            plan.launch(
                gpu,
                s.g.a.ptr(gpu),
                s.g.b.ptr(gpu),
                s.bias.ptr(gpu),
                s.residual.ptr(gpu),
                out.ptr(gpu),
            )?
        };
        Ok(out)
    }
}

impl<E: Elem> BenchCase for GemmResidualCase<E> {
    fn id(&self) -> CaseId {
        let shape = gemm_shape(self.m, self.n, self.k);
        let mut id = match (&self.user, self.imp) {
            (Some(u), _) => CaseId::new("gemm_residual", "user", &user::variant_label(u), shape),
            (None, ResidualImpl::Ours(v)) => {
                CaseId::new("gemm_residual", "ours", &format!("v{v}"), shape)
            }
            (None, ResidualImpl::Cublaslt) => CaseId::new("gemm_residual", "cublaslt", "", shape),
        };
        id.dtype = E::DTYPE.name().into();
        id
    }
    fn work(&self) -> Work {
        work(self.m, self.n, self.k)
    }
    fn set_bytes(&self) -> u64 {
        self.work().bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets.clear();
        let mn = (self.m * self.n) as usize;
        for s in 0..sets as u64 {
            let seed = self.seed + s;
            let g = GemmSet::for_case(gpu, self.m, self.n, self.k, seed, self.user.is_some())?;
            let bias = random_bias(gpu, self.n, seed)?;
            // Wider than the bias: a residual dropped or read at another row is far off.
            let residual = DevBuf::random(gpu, mn, seed ^ 0x4e51, -2.0, 2.0, "residual")?;
            self.sets.push(Set { g, bias, residual });
        }
        if self.imp == ResidualImpl::Cublaslt && self.user.is_none() {
            self.ensure_plan(gpu)?;
        }
        // One eager launch: one-time kernel attributes stay out of any graph capture.
        self.launch(gpu, 0)
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let s = &self.sets[set];
        let (m, n, k) = (self.m, self.n, self.k);
        let (a, b, bias, r, c) = (
            s.g.a.ptr(gpu),
            s.g.b.ptr(gpu),
            s.bias.ptr(gpu),
            s.residual.ptr(gpu),
            s.g.c.ptr(gpu),
        );
        if let Some(u) = &self.user {
            let args = [
                Arg::Ptr(a),
                Arg::Ptr(b),
                Arg::Ptr(bias),
                Arg::Ptr(r),
                Arg::Ptr(c),
                Arg::I32(m as i32),
                Arg::I32(n as i32),
                Arg::I32(k as i32),
            ];
            return u.launch(gpu, &gemm_shape(m, n, k), &args);
        }
        match self.imp {
            ResidualImpl::Ours(v) => {
                let launcher = match E::DTYPE {
                    Dtype::F16 => ffi::rl_gemm_residual,
                    Dtype::Bf16 => ffi::rl_gemm_residual_bf16,
                };
                // SAFETY: buffers sized for (m, n, k) in prepare(), of E; R and C are distinct;
                // the launcher refuses a variant without a form in E's dtype.
                let code = unsafe {
                    launcher(
                        v as i32,
                        a,
                        b,
                        bias,
                        r,
                        c,
                        m as i32,
                        n as i32,
                        k as i32,
                        gpu.raw_stream(),
                    )
                };
                let shape = gemm_shape(m, n, k).label();
                let name = format!("gemm_residual v{v}{}", E::DTYPE.suffix());
                gpu.check_launch(code, &name, &shape)
            }
            ResidualImpl::Cublaslt => {
                let plan = self.lt.as_ref().expect("plan made in prepare");
                // SAFETY: buffers sized for the plan's shape in prepare(); R and C are distinct.
                unsafe { plan.launch(gpu, a, b, bias, r, c) }
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
        // cuBLASLt's own case is the library: no second library run to compare it with, and
        // the library's bound against float64.
        let is_library = self.user.is_none() && self.imp == ResidualImpl::Cublaslt;
        let library = if is_library {
            None
        } else {
            Some(self.library_reference(gpu)?)
        };
        gpu.sync(&self.id().describe(), &gemm_shape(m, n, k).label())?;
        let s = &self.sets[0];
        let epilogue = Epilogue::BiasResidual {
            bias: &s.bias,
            residual: &s.residual,
        };
        let mut v = check::check_against_cpu(
            gpu,
            &s.g.a,
            &s.g.b,
            &s.g.c,
            epilogue,
            m,
            n,
            k,
            if is_library {
                Tolerance::library(E::DTYPE)
            } else {
                Tolerance::gemm(E::DTYPE)
            },
        )?;
        if let Some(reference) = library {
            let lib = check::check_against_library(&s.g.c, &reference, gpu, "cuBLASLt")?;
            v = check::both(v, lib);
        }
        user::with_guards(gpu, v, &[("C", &s.g.c)])
    }
}

/// rl_gemm_residual's Rust type (bindgen'd from the public header into src/ffi.rs): what a
/// GEMM+bias+residual plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *const c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "gemm_residual",
    aliases: &["gemm-residual"],
    summary: "GEMM + bias + residual (C = A.B + bias + R): ours (one epilogue on every M path of \
              HGEMM), our plain GEMM, cuBLASLt's BIAS epilogue with beta = 1 on C = R",
    shape: ShapeKind::Gemm {
        m: 4096,
        n: 4096,
        k: 4096,
    },
    references: &[
        "float64 CPU (sampled rows)",
        "cuBLASLt, BIAS epilogue, beta = 1 on C = R (every element)",
    ],
    tolerance: Tolerance::GEMM,
    impls: &["ours", "plain", "cublaslt"],
    default_impls: &["ours", "cublaslt"],
    library: "cublaslt",
    takes_gelu: false,
    variants,
    best,
    dispatch: &[
        Dispatch {
            shapes: "where hgemm v14 runs its warp-specialized kernel (a width per shape)",
            runs: "HGEMM v14's kernel, R copied into the tile's staging under the second half \
                   of its main loop (v11), bias + residual in the consumers' registers, the \
                   tile stored by TMA",
            why: "one epilogue functor, no new kernel",
        },
        Dispatch {
            shapes: "every other M",
            runs: "HGEMM v11's paths (see hgemm) with bias + residual before the store: the \
                   slabs take it as a run-time descriptor of its own (SlabEpiResidual: slab \
                   kernels built for it alone), the tiles and the few-row tile as a functor",
            why: "one epilogue functor, written once, on every M path of the plain GEMM",
        },
        Dispatch {
            shapes: "WMMA tiles of 128x256 / 256x128",
            runs: "the warp tile parked in shared memory, bias + residual on the way out",
            why: "as GEMM+bias+GELU (not measured for this epilogue)",
        },
        Dispatch {
            shapes: "whole tiles of 256x128",
            runs: "the lean loop in the fused family's form (last k-step's stage offset opaque)",
            why: "as GEMM+bias+GELU v4; ptxas: 254 registers, no spill",
        },
        Dispatch {
            shapes: "bf16 (--dtype bf16, v11 only)",
            runs: "v11's staged kernel where v14's widths suit the shape, else hgemm's bf16 \
                   paths (v12's kernel, else v9's tile at any M, else v1's), the functor, bias \
                   and R in bf16",
            why: "the fp16 kernels' bf16 forms (figures: docs/perf-log.md)",
        },
    ],
    work: |s| {
        let (m, n, k) = gemm::dims(s);
        work(m, n, k)
    },
    check_shapes: gemm::epilogue_check_shapes,
    random_shape: gemm::random_gemm_shape,
    check_cases: |s, vs, pick, dtype| {
        let (m, n, k) = gemm::dims(s);
        let case = |imp, seed| residual_case((m, n, k), imp, seed, dtype);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        for &v in vs {
            out.push(case(ResidualImpl::Ours(v), pick.seed_or(m + k)));
        }
        if let CheckPick::Fixed = pick {
            out.push(case(ResidualImpl::Cublaslt, n));
        }
        out
    },
    bench_cases: |r| {
        let (m, n, k) = gemm::dims(&r.shape);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        for imp in &r.impls {
            match imp.as_str() {
                // The plain GEMM runs each variant's plain twin: what the epilogue costs.
                "plain" => {
                    for &v in &r.variants {
                        let p = plain_variant(v);
                        out.push(hgemm_case(m, n, k, p, r.seed, r.dtype));
                    }
                }
                "ours" => {
                    for &v in &r.variants {
                        let imp = ResidualImpl::Ours(v);
                        out.push(residual_case((m, n, k), imp, r.seed, r.dtype));
                    }
                }
                _ => {
                    let imp = ResidualImpl::Cublaslt;
                    out.push(residual_case((m, n, k), imp, r.seed, r.dtype));
                }
            }
        }
        Ok(out)
    },
    sweeps: &[],
    elementwise_point: None,
    user_params: &[
        p("const __half* A", Ptr),
        p("const __half* B", Ptr),
        p("const __half* bias", Ptr),
        p("const __half* R", Ptr),
        p("__half* C", Ptr),
        p("int M", I32),
        p("int N", I32),
        p("int K", I32),
    ],
    user_case: |s, k, _, seed| {
        let (m, n, kk) = gemm::dims(s);
        Box::new(GemmResidualCase::user(m, n, kk, k, seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_gemm_residual,
        "rl_gemm_residual",
        "int rl_gemm_residual(int variant, const void *A, const void *B, const void *bias, const void *R, void *C, int M, int N, int K, void *stream)",
        None,
    ),
    bf16: Some(Bf16Forms {
        variant: takes_bf16,
        impls: &["ours", "plain", "cublaslt"],
    }),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_counts_the_bias_and_the_residual_once() {
        let g = work::gemm(16, 4096, 4096);
        let w = work(16, 4096, 4096);
        assert_eq!(w.flops - g.flops, 2.0 * 16.0 * 4096.0);
        assert_eq!(w.bytes - g.bytes, 2.0 * (4096.0 + 16.0 * 4096.0));
    }

    /// Both epilogue families: every variant runs an HGEMM variant's kernels; GEMM+bias+GELU's
    /// best runs HGEMM's best, GEMM+bias+residual's v11 HGEMM v14 (its staged R fills v14's
    /// whole-tile staging, which HGEMM v18 and v19 stage in halves).
    #[test]
    fn every_epilogue_variant_runs_an_hgemm_variants_kernels() {
        use crate::kernels::gemm_gelu;
        let plain: Vec<u32> = gemm::variants().iter().map(|(v, _)| *v).collect();
        type Variants = fn() -> Vec<(u32, String)>;
        type Twin = unsafe extern "C" fn(i32) -> i32;
        let families: [(Variants, Twin, u32, u32); 2] = [
            (variants, ffi::rl_gemm_residual_plain_variant, BEST, 14),
            (
                gemm_gelu::variants,
                ffi::rl_gemm_bias_gelu_plain_variant,
                gemm_gelu::BEST,
                gemm::BEST,
            ),
        ];
        for (vs, twin, best, best_twin) in families {
            for (v, _) in vs() {
                // SAFETY: takes and returns an int.
                let t = unsafe { twin(v as i32) };
                assert!(plain.contains(&(t as u32)), "v{v}: twin {t}");
            }
            assert_eq!(super::super::variants::plain_twin(twin, best), best_twin);
        }
        // Out of range: HGEMM's best.
        assert_eq!(plain_variant(99), gemm::best());
    }
}
