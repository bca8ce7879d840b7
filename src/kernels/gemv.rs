//! Decode GEMV / small-M GEMM y[M x N] = x[M x K] . W[K x N] (cuda/gemv/) beside cuBLAS,
//! checked against float64 CPU and cuBLAS.

use super::copy::ReadCase;
use super::cublas_gemm::{gemm_row_major, gemm_shape, Dtype};
use crate::error::usage;
use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, random_dim, Dispatch, Family, ShapeKind};
use crate::results::schema::Shape;
use crate::roofline::{work, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::gemm as check;
use crate::verify::reference::Epilogue;
use crate::verify::Tolerance;
use anyhow::Result;
use half::f16;
use rand::Rng;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The variant "best" means: v14 "prefetch_one_pass", the last step of the ladder in
/// cuda/gemv/ (gemv_14_prefetch_one_pass.cuh). What it runs at which shapes is
/// `FAMILY.dispatch` (the same table as the comment of cuda/gemv/gemv.cu); docs/perf-log.md has
/// the figures.
pub const BEST: u32 = 14;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

/// (number, "name: summary") of every GEMV variant.
pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_gemv_variant_count,
        ffi::rl_gemv_variant_name,
        ffi::rl_gemv_variant_summary,
    )
}

#[derive(Clone)]
pub enum GemvImpl {
    Ours(u32),
    Cublas,
    /// A user's kernel (impl "user").
    User(Arc<UserKernel>),
}

struct GemvSet {
    x: DevBuf<f16>,
    w: DevBuf<f16>,
    y: DevBuf<f16>,
}

pub struct GemvCase {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub imp: GemvImpl,
    pub seed: u64,
    sets: Vec<GemvSet>,
    /// Scratch for split-K variants: zeroed once, left zeroed by every launch.
    workspace: Option<DevBuf<u8>>,
}

impl GemvCase {
    pub fn new(m: u64, n: u64, k: u64, imp: GemvImpl, seed: u64) -> Self {
        GemvCase {
            m,
            n,
            k,
            imp,
            seed,
            sets: Vec::new(),
            workspace: None,
        }
    }
}

impl BenchCase for GemvCase {
    fn id(&self) -> CaseId {
        let (imp, v) = match &self.imp {
            GemvImpl::Ours(v) => ("ours", format!("v{v}")),
            GemvImpl::Cublas => ("cublas", String::new()),
            GemvImpl::User(u) => ("user", user::variant_label(u)),
        };
        CaseId::new("gemv", imp, &v, gemm_shape(self.m, self.n, self.k))
    }
    fn work(&self) -> Work {
        work::gemv(self.m, self.n, self.k)
    }
    fn set_bytes(&self) -> u64 {
        self.work().bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        self.sets.clear();
        for s in 0..sets as u64 {
            let seed = (self.seed + s).wrapping_mul(5);
            self.sets.push(GemvSet {
                x: DevBuf::random(gpu, m * k, seed, -1.0, 1.0, "GEMV x")?,
                w: DevBuf::random(gpu, k * n, seed + 1, -1.0, 1.0, "GEMV W")?,
                y: user::output(gpu, matches!(self.imp, GemvImpl::User(_)), m * n, "GEMV y")?,
            });
        }
        if let GemvImpl::Ours(v) = self.imp {
            // Also runs the launcher's one-time host queries before any graph capture.
            // SAFETY: a pure size query.
            let bytes =
                unsafe { ffi::rl_gemv_workspace_bytes(v as i32, m as i32, n as i32, k as i32) };
            self.workspace = if bytes > 0 {
                Some(DevBuf::zeros_bytes(gpu, bytes, "GEMV workspace")?)
            } else {
                None
            };
        } else if let GemvImpl::Cublas = self.imp {
            gpu.blas()?;
        }
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let s = &self.sets[set];
        let (m, n, k) = (self.m, self.n, self.k);
        match &self.imp {
            GemvImpl::User(u) => {
                let args = [
                    Arg::Ptr(s.x.ptr(gpu)),
                    Arg::Ptr(s.w.ptr(gpu)),
                    Arg::Ptr(s.y.ptr(gpu)),
                    Arg::I32(m as i32),
                    Arg::I32(n as i32),
                    Arg::I32(k as i32),
                ];
                u.launch(gpu, &gemm_shape(m, n, k), &args)
            }
            &GemvImpl::Ours(v) => {
                let ws = self
                    .workspace
                    .as_ref()
                    .map_or(std::ptr::null_mut(), |w| w.ptr(gpu));
                // SAFETY: x m*k, W k*n, y m*n elements; workspace as large as the launcher asked.
                let code = unsafe {
                    ffi::rl_gemv(
                        v as i32,
                        s.x.ptr(gpu),
                        s.w.ptr(gpu),
                        s.y.ptr(gpu),
                        ws,
                        m as i32,
                        n as i32,
                        k as i32,
                        gpu.raw_stream(),
                    )
                };
                gpu.check_launch(code, &format!("gemv v{v}"), &gemm_shape(m, n, k).label())
            }
            // SAFETY: x m*k, W k*n, y m*n elements.
            GemvImpl::Cublas => unsafe {
                gemm_row_major(
                    gpu,
                    Dtype::F16,
                    s.x.ptr(gpu),
                    s.w.ptr(gpu),
                    s.y.ptr(gpu),
                    m as usize,
                    n as usize,
                    k as usize,
                )
            },
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
        self.sets[0].y.poison(gpu)?;
        self.launch(gpu, 0)?;
        let s = &self.sets[0];
        let reference = super::gemm::cublas_reference(gpu, &s.x, &s.w, m, n, k)?;
        gpu.sync(&self.id().describe(), &gemm_shape(m, n, k).label())?;
        let cpu = check::check_against_cpu(
            gpu,
            &s.x,
            &s.w,
            &s.y,
            Epilogue::Plain,
            m,
            n,
            k,
            Tolerance::GEMM,
        )?;
        if let GemvImpl::Cublas = self.imp {
            return Ok(cpu);
        }
        let lib = check::check_against_library(&s.y, &reference, gpu, "cuBLAS")?;
        user::with_guards(gpu, check::both(cpu, lib), &[("y", &s.y)])
    }
}

/// rl_gemv's Rust type (bindgen'd from the public header into src/ffi.rs): what a GEMV
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *mut c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "gemv",
    aliases: &[],
    summary: "decode GEMV / small-M GEMM y = x.W (fp16, fp32 accumulation): ours, cuBLAS, and \
              a plain read of W (the floor)",
    shape: ShapeKind::Gemm {
        m: 1,
        n: 4096,
        k: 4096,
    },
    references: &["cuBLAS (same inputs)", "float64 CPU (sampled rows)"],
    tolerance: Tolerance::GEMM,
    impls: &["ours", "cublas", "read"],
    default_impls: &["ours", "cublas"],
    library: "cublas",
    takes_gelu: false,
    variants,
    best,
    dispatch: &[
        Dispatch {
            shapes: "2..16 rows where 64-column slabs need a (1, 2) cluster (N = 4096 on an \
                     H200), K % 64 == 0, x 16-byte aligned",
            runs: "v13's 32-column slabs over all of K, no cluster, with v14's L2 prefetch \
                   hint on W's loads and one-pass end",
            why: "no exchange of partial sums; 1.02-1.05x a plain read of W at 4096², report Y",
        },
        Dispatch {
            shapes: "2..16 rows, K % 32 == 0, x 16-byte aligned, a 64-column slab plan",
            runs: "v12: the slabs' lean loop over units of two groups (clusters exchange by \
                   st.async, v11)",
            why: "one 16-byte x load per two groups; within 5% of the read at 8192², report R",
        },
        Dispatch {
            shapes: "2..8 rows, K % 16 == 0, x 8-byte aligned, a 64-column slab plan",
            runs: "v10: the lean loop in the one-row slab's order (two groups in flight)",
            why: "the next group's loads issued before the current one is multiplied",
        },
        Dispatch {
            shapes: "9..16 rows, sm_90, N and K multiples of 8, x and W 16-byte aligned",
            runs: "v8: the TMA slabs (W and x through a 4-stage TMA ring in shared memory)",
            why: "the bytes in flight in shared memory, not registers",
        },
        Dispatch {
            shapes: "other 2..16-row shapes with a 64-column slab plan",
            runs: "v7's lean loop (K % 16 == 0), else v6's W-as-A slab (2..8 rows) or v5's \
                   16-row slab",
            why: "guarded loads for odd K and unaligned x",
        },
        Dispatch {
            shapes: "1 row with a one-row slab plan",
            runs: "v5: the one-row FMA slab over all of K; in a cluster of 2 with x staged \
                   first where x is 16-byte aligned (v11)",
            why: "W streamed once at the read's pace: 1.04x the read",
        },
        Dispatch {
            shapes: "no slab plan (a slab grid would not fill half a wave, or exceeds one)",
            runs: "v4: split-K through the workspace; mma.sync at 2..16 rows, FMA at one row",
            why: "split-K fills the GPU where the slabs cannot",
        },
        Dispatch {
            shapes: "N % 8 != 0 or W not 16-byte aligned",
            runs: "v2's scalar-column kernel (32 columns per block, K over 8 warps)",
            why: "no 16-byte loads of W there",
        },
    ],
    work: |s| {
        let (m, n, k) = super::gemm::dims(s);
        work::gemv(m, n, k)
    },
    check_shapes: || {
        [
            (1, 4096, 4096),
            (16, 8192, 8192),
            (1, 1, 1),
            (5, 7, 9),
            (3, 4100, 4097),
            (17, 520, 777),
        ]
        .into_iter()
        .map(|(m, n, k)| Shape::Gemm { m, n, k })
        .collect()
    },
    random_shape: |rng| Shape::Gemm {
        m: rng.gen_range(1..=20),
        n: random_dim(rng, 5000),
        k: random_dim(rng, 5000),
    },
    check_cases: |s, vs, pick, _dtype| {
        let (m, n, k) = super::gemm::dims(s);
        let seed = pick.seed_or(n + k);
        per_variant(vs, |v| {
            Box::new(GemvCase::new(m, n, k, GemvImpl::Ours(v), seed))
        })
    },
    bench_cases: |r| {
        let (m, n, k) = super::gemm::dims(&r.shape);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        if r.impls.iter().any(|i| i == "read") {
            if 2 * k * n < 16 {
                return Err(usage(format!(
                    "--impl read needs W of at least 16 bytes (N x K >= 8), got {n} x {k}"
                )));
            }
            out.push(Box::new(ReadCase::new(2 * k * n, r.seed)));
        }
        for imp in r.impls.iter().filter(|i| *i != "read") {
            let imps: Vec<GemvImpl> = match imp.as_str() {
                "cublas" => vec![GemvImpl::Cublas],
                _ => r.variants.iter().map(|&v| GemvImpl::Ours(v)).collect(),
            };
            for i in imps {
                out.push(Box::new(GemvCase::new(m, n, k, i, r.seed)));
            }
        }
        Ok(out)
    },
    sweeps: &["decode"],
    elementwise_point: None,
    user_params: &[
        p("const __half* x", Ptr),
        p("const __half* W", Ptr),
        p("__half* y", Ptr),
        p("int M", I32),
        p("int N", I32),
        p("int K", I32),
    ],
    user_case: |s, k, _, seed| {
        let (m, n, kk) = super::gemm::dims(s);
        Box::new(GemvCase::new(m, n, kk, GemvImpl::User(k), seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_gemv,
        "rl_gemv",
        "int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, int M, int N, int K, void *stream)",
        Some(3),
    ),
    bf16: None,
};
