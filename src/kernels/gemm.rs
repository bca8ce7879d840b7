//! Our Tensor Core HGEMM (cuda/gemm/, its variant table in hgemm.cu) as a BenchCase, checked
//! against a float64 CPU reference and cuBLAS.

use super::cublas_gemm::{gemm_row_major, gemm_shape, CublasGemmCase, Dtype, GemmSet};
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
use rand_chacha::ChaCha8Rng;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The variant "best" means: v12 "warp_specialized", the last step of the ladder in cuda/gemm/
/// (hgemm_12_warp_specialized.cuh). What it runs at which shapes is `FAMILY.dispatch` (the same
/// table as the comment of cuda/gemm/hgemm.cu); docs/perf-log.md has the figures.
pub const BEST: u32 = 12;

/// The variant "best" resolves to on this build.
pub fn best() -> u32 {
    super::variants::best_of(&variants(), BEST)
}

/// (number, "name: summary") of every HGEMM variant.
pub fn variants() -> Vec<(u32, String)> {
    super::variants::list_named(
        ffi::rl_hgemm_variant_count,
        ffi::rl_hgemm_variant_name,
        ffi::rl_hgemm_variant_summary,
    )
}

/// Enqueues our HGEMM variant `v` on C = A . B.
pub fn launch_hgemm(gpu: &Gpu, v: u32, s: &GemmSet<f16>, m: u64, n: u64, k: u64) -> Result<()> {
    // SAFETY: GemmSet sized A m*k, B k*n, C m*n for this shape; the launcher checks the rest.
    let code = unsafe {
        ffi::rl_hgemm(
            v as i32,
            s.a.ptr(gpu),
            s.b.ptr(gpu),
            s.c.ptr(gpu),
            m as i32,
            n as i32,
            k as i32,
            gpu.raw_stream(),
        )
    };
    gpu.check_launch(code, &format!("hgemm v{v}"), &gemm_shape(m, n, k).label())
}

/// cuBLAS's result for set `s` in a fresh buffer (the library reference).
pub fn cublas_reference(
    gpu: &Gpu,
    a: &DevBuf<f16>,
    b: &DevBuf<f16>,
    m: u64,
    n: u64,
    k: u64,
) -> Result<DevBuf<f16>> {
    anyhow::ensure!(
        a.len() as u64 >= m * k && b.len() as u64 >= k * n,
        "cuBLAS reference: operands smaller than {m}x{n}x{k}"
    );
    let out = DevBuf::<f16>::poisoned(gpu, (m * n) as usize, "cuBLAS reference")?;
    // SAFETY: A and B hold at least m*k and k*n elements (checked above), out m*n.
    unsafe {
        gemm_row_major(
            gpu,
            Dtype::F16,
            a.ptr(gpu),
            b.ptr(gpu),
            out.ptr(gpu),
            m as usize,
            n as usize,
            k as usize,
        )?
    };
    Ok(out)
}

pub struct HgemmCase {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<GemmSet<f16>>,
    /// A user's kernel run in place of ours (impl "user").
    user: Option<Arc<UserKernel>>,
}

impl HgemmCase {
    pub fn new(m: u64, n: u64, k: u64, variant: u32, seed: u64) -> Self {
        HgemmCase {
            m,
            n,
            k,
            variant,
            seed,
            sets: Vec::new(),
            user: None,
        }
    }
    pub fn user(m: u64, n: u64, k: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        HgemmCase {
            user: Some(kernel),
            ..Self::new(m, n, k, 0, seed)
        }
    }
}

/// Launches a user's GEMM-signature kernel on set `s` (A, B, C, M, N, K).
pub fn launch_user_gemm(gpu: &Gpu, u: &UserKernel, s: &GemmSet<f16>, shape: &Shape) -> Result<()> {
    let (m, n, k) = dims(shape);
    let args = [
        Arg::Ptr(s.a.ptr(gpu)),
        Arg::Ptr(s.b.ptr(gpu)),
        Arg::Ptr(s.c.ptr(gpu)),
        Arg::I32(m as i32),
        Arg::I32(n as i32),
        Arg::I32(k as i32),
    ];
    u.launch(gpu, shape, &args)
}

impl BenchCase for HgemmCase {
    fn id(&self) -> CaseId {
        let shape = gemm_shape(self.m, self.n, self.k);
        match &self.user {
            Some(u) => CaseId::new("hgemm", "user", &user::variant_label(u), shape),
            None => CaseId::new("hgemm", "ours", &format!("v{}", self.variant), shape),
        }
    }
    fn work(&self) -> Work {
        work::gemm(self.m, self.n, self.k)
    }
    fn set_bytes(&self) -> u64 {
        self.work().bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets.clear();
        for s in 0..sets as u64 {
            let user = self.user.is_some();
            let g = GemmSet::for_case(gpu, self.m, self.n, self.k, self.seed + s, user)?;
            self.sets.push(g);
        }
        // One eager launch: one-time kernel attributes stay out of any graph capture.
        self.launch(gpu, 0)
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let (m, n, k) = (self.m, self.n, self.k);
        match &self.user {
            Some(u) => launch_user_gemm(gpu, u, &self.sets[set], &gemm_shape(m, n, k)),
            None => launch_hgemm(gpu, self.variant, &self.sets[set], m, n, k),
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
        let s = &self.sets[0];
        s.c.poison(gpu)?;
        self.launch(gpu, 0)?;
        let reference = cublas_reference(gpu, &s.a, &s.b, m, n, k)?;
        let what = self.id().describe();
        gpu.sync(&what, &gemm_shape(m, n, k).label())?;
        let cpu = check::check_against_cpu(gpu, &s.a, &s.b, &s.c, Epilogue::Plain, m, n, k)?;
        let lib = check::check_against_library(&s.c, &reference, gpu, "cuBLAS")?;
        user::with_guards(gpu, check::both(cpu, lib), &[("C", &s.c)])
    }
}

/// (m, n, k) of a GEMM-kind shape. The registry hands a family only shapes of its own kind
/// (its CPU test checks that), so another kind here is a bug in the caller.
pub fn dims(s: &Shape) -> (u64, u64, u64) {
    match *s {
        Shape::Gemm { m, n, k } => (m, n, k),
        _ => unreachable!("a GEMM family was given the shape {}", s.label()),
    }
}

/// Fixed GEMM check shapes: 1x1x1, primes, off-tile, N/K not multiples of 8, large.
pub const CHECK_SHAPES: &[(u64, u64, u64)] = &[
    (1, 1, 1),
    (127, 257, 129),
    (33, 17, 5),
    (129, 7, 33),
    (257, 263, 269),
    (128, 128, 128),
    (255, 264, 72),
    (16, 4096, 4096),
    (1000, 1000, 1000),
    (2048, 2048, 2048),
];

/// The check shapes of the epilogue families (GEMM+bias+GELU, GEMM+bias+residual): the first
/// eight, M = 1 to 1000, each M path's small shapes and 16x4096x4096 on the slabs.
pub fn epilogue_check_shapes() -> Vec<Shape> {
    CHECK_SHAPES[..8]
        .iter()
        .map(|&(m, n, k)| Shape::Gemm { m, n, k })
        .collect()
}

/// A random GEMM check shape (every dimension up to 320, half of them below 64).
pub fn random_gemm_shape(rng: &mut ChaCha8Rng) -> Shape {
    let (m, n, k) = (
        random_dim(rng, 320),
        random_dim(rng, 320),
        random_dim(rng, 320),
    );
    Shape::Gemm { m, n, k }
}

/// rl_hgemm's Rust type (bindgen'd from the public header into src/ffi.rs): what an HGEMM
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher = unsafe extern "C" fn(
    c_int,
    *const c_void,
    *const c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    *mut c_void,
) -> c_int;

pub const FAMILY: Family = Family {
    name: "hgemm",
    aliases: &["gemm"],
    summary: "Tensor Core HGEMM C = A.B (row-major fp16, fp32 accumulation): ours and cuBLAS",
    shape: ShapeKind::Gemm {
        m: 4096,
        n: 4096,
        k: 4096,
    },
    references: &["cuBLAS (same inputs)", "float64 CPU (sampled rows)"],
    tolerance: Tolerance::GEMM,
    impls: &["ours", "cublas"],
    default_impls: &["ours", "cublas"],
    library: "cublas",
    takes_gelu: false,
    variants,
    best,
    dispatch: &[
        Dispatch {
            shapes: "grids of a wave or more of 128x256 tiles, at most 1/4 of their area \
                     outside C (M >= 192 in practice); N, K multiples of 8",
            runs: "v12: the persistent warp-specialized wgmma kernel (TMA multicast over a \
                   cluster of 2, 4-stage ring; sm_90a)",
            why: "Hopper's tensor cores from shared memory: 0.93-0.99x cuBLAS at 2048-8192^3 \
                  (S34), 1.6-1.65x v11",
        },
        Dispatch {
            shapes: "17 <= M <= 64",
            runs: "v10's 64x64 wgmma tile, K split over a cluster of 1-4 CTAs (sm_90a)",
            why: "B is the traffic and 64 rows fit one m64 wgmma; fills the GPU in one wave \
                  where the grid covers half of it (else the slabs below)",
        },
        Dispatch {
            shapes: "9 <= M <= 64",
            runs: "v8: the GEMV's TMA slabs (N, K multiples of 8; sm_90)",
            why: "W streamed once through a TMA ring; no split-K tail",
        },
        Dispatch {
            shapes: "M <= 16",
            runs: "v8: the GEMV's register slabs (gemv/gemv_slabs_api.cuh)",
            why: "a 16-row tile would leave most of a tensor-core tile empty; W is read once",
        },
        Dispatch {
            shapes: "65 <= M <= 512 where v7 would split K",
            runs: "v9's 128x64 wgmma tile over all of K, fed by TMA (sm_90a)",
            why: "measured faster than WMMA split-K at mid M (WG1: 25.3 vs 34.9 us at 256 rows)",
        },
        Dispatch {
            shapes: "K >= 1024 with too few tiles to fill the GPU",
            runs: "v7: split-K over a cluster, DSMEM reduction",
            why: "fills the SMs that one tile per CTA would leave idle",
        },
        Dispatch {
            shapes: "whole tiles of 256x128 (M, N, K multiples of 256, 128, 256)",
            runs: "v11: the 256x128 WMMA tile on the lean loop (ring unrolled, no predicates)",
            why: "+5-6% over v5's loop at the squares (VC); ~61% of cuBLAS at 4096^3 (AF)",
        },
        Dispatch {
            shapes: "larger M, other shapes",
            runs: "v5's pipelined WMMA loop on v6's tile for the shape; v4's tiles off the \
                   16-byte path",
            why: "the fastest WMMA tile per shape by v6's cost model",
        },
    ],
    work: |s| {
        let (m, n, k) = dims(s);
        work::gemm(m, n, k)
    },
    check_shapes: || {
        CHECK_SHAPES
            .iter()
            .map(|&(m, n, k)| Shape::Gemm { m, n, k })
            .collect()
    },
    random_shape: random_gemm_shape,
    check_cases: |s, vs, pick| {
        let (m, n, k) = dims(s);
        per_variant(vs, |v| {
            Box::new(HgemmCase::new(m, n, k, v, pick.seed_or(m + n)))
        })
    },
    bench_cases: |r| {
        let (m, n, k) = dims(&r.shape);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        for imp in &r.impls {
            match imp.as_str() {
                "cublas" => out.push(Box::new(CublasGemmCase::new(m, n, k, Dtype::F16, r.seed))),
                _ => {
                    for &v in &r.variants {
                        out.push(Box::new(HgemmCase::new(m, n, k, v, r.seed)));
                    }
                }
            }
        }
        Ok(out)
    },
    sweeps: &["square", "llm", "fusion"],
    elementwise_point: None,
    user_params: &[
        p("const __half* A", Ptr),
        p("const __half* B", Ptr),
        p("__half* C", Ptr),
        p("int M", I32),
        p("int N", I32),
        p("int K", I32),
    ],
    user_case: |s, k, _, seed| {
        let (m, n, kk) = dims(s);
        Box::new(HgemmCase::user(m, n, kk, k, seed))
    },
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_hgemm,
        "rl_hgemm",
        "int rl_hgemm(int variant, const void *A, const void *B, void *C, int M, int N, int K, void *stream)",
        None,
    ),
};
