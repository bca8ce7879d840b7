//! Our Tensor Core HGEMM (cuda/gemm/, its variant table in hgemm.cu) as a BenchCase, checked
//! against a float64 CPU reference and cuBLAS.

use super::cublas_gemm::{gemm_row_major, gemm_shape, CublasGemmCase, Dtype, GemmSet};
use crate::dtype::Elem;
use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, random_dim, Bf16Forms, Dispatch, Family, ShapeKind};
use crate::results::schema::Shape;
use crate::roofline::{work, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::gemm as check;
use crate::verify::reference::Epilogue;
use crate::verify::Tolerance;
use anyhow::Result;
use half::{bf16, f16};
use rand_chacha::ChaCha8Rng;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The variant "best" means: v32 "producer_tail" (cuda/gemm/hgemm_32_producer_tail.cuh): v14's
/// widths with the 128x256 tile staged in halves for a fourth stage (v18), the second half in
/// the ring stage its last k-tile emptied (v21), the wgmma descriptors moved on by adds at every
/// width (v22), the 64-wide tile at every M the cost model gives it (v23), the cluster met once,
/// relaxed, and left on the producer's tail (v32). What it runs at which shapes is
/// `FAMILY.dispatch` (the same table as the comment of cuda/gemm/hgemm.cu); docs/perf-log.md has
/// the figures.
pub const BEST: u32 = 32;

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

/// The variant "best" resolves to in `dtype`: `best()`, or in bf16 the highest variant with a
/// bf16 form should best have none (v14 is best and has one).
pub fn best_in(dtype: Dtype) -> u32 {
    let b = best();
    if dtype == Dtype::F16 || takes_bf16(b) {
        return b;
    }
    let with: Vec<u32> = variants()
        .into_iter()
        .map(|(v, _)| v)
        .filter(|&v| takes_bf16(v))
        .collect();
    with.into_iter().max().unwrap_or(b)
}

/// The HGEMM variants with a bf16 form (cuda/gemm/hgemm.cu's bf16 column; the tests hold the
/// table to it): best (v32), v18, v19 and v21-v24 (steps before it and the 128x64 pairs,
/// measured against it) and v14, GEMM+bias+residual v11's plain twin.
pub const BF16_FORMS: [u32; 8] = [14, 18, 19, 21, 22, 23, 24, 32];

/// Whether HGEMM variant `v` has a bf16 form (its table's bf16 column: BF16_FORMS).
pub fn takes_bf16(v: u32) -> bool {
    // SAFETY: takes and returns an int; 0 out of range.
    unsafe { ffi::rl_hgemm_variant_bf16(v as i32) == 1 }
}

/// Enqueues our HGEMM variant `v` on C = A . B, in the set's dtype (rl_hgemm, or rl_hgemm_bf16
/// for a variant with a bf16 form).
pub fn launch_hgemm<E: Elem>(
    gpu: &Gpu,
    v: u32,
    s: &GemmSet<E>,
    m: u64,
    n: u64,
    k: u64,
) -> Result<()> {
    let launcher = match E::DTYPE {
        Dtype::F16 => ffi::rl_hgemm,
        Dtype::Bf16 => ffi::rl_hgemm_bf16,
    };
    // SAFETY: GemmSet sized A m*k, B k*n, C m*n of E for this shape; the launcher checks the
    // rest (a variant without a bf16 form is refused, cudaErrorInvalidValue).
    let code = unsafe {
        launcher(
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
    let name = format!("hgemm v{v}{}", E::DTYPE.suffix());
    gpu.check_launch(code, &name, &gemm_shape(m, n, k).label())
}

/// cuBLAS's result for set `s` in a fresh buffer (the library reference), in E's dtype.
pub fn cublas_reference<E: Elem>(
    gpu: &Gpu,
    a: &DevBuf<E>,
    b: &DevBuf<E>,
    m: u64,
    n: u64,
    k: u64,
) -> Result<DevBuf<E>> {
    anyhow::ensure!(
        a.len() as u64 >= m * k && b.len() as u64 >= k * n,
        "cuBLAS reference: operands smaller than {m}x{n}x{k}"
    );
    let out = DevBuf::<E>::poisoned(gpu, (m * n) as usize, "cuBLAS reference")?;
    // SAFETY: A and B hold at least m*k and k*n elements of E (checked above), out m*n.
    unsafe {
        gemm_row_major(
            gpu,
            E::DTYPE,
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

/// Our HGEMM variant at one shape, in E's dtype (fp16; bf16 for a variant with a bf16 form).
pub struct HgemmCase<E: Elem = f16> {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<GemmSet<E>>,
    /// A user's kernel run in place of ours (impl "user"; fp16 only).
    user: Option<Arc<UserKernel>>,
}

impl<E: Elem> HgemmCase<E> {
    /// Variant `variant` at (m, n, k) in E's dtype.
    pub fn typed(m: u64, n: u64, k: u64, variant: u32, seed: u64) -> Self {
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
}

impl HgemmCase {
    /// The fp16 case.
    pub fn new(m: u64, n: u64, k: u64, variant: u32, seed: u64) -> Self {
        Self::typed(m, n, k, variant, seed)
    }
    pub fn user(m: u64, n: u64, k: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        HgemmCase {
            user: Some(kernel),
            ..Self::new(m, n, k, 0, seed)
        }
    }
}

/// Our HGEMM variant `v` at (m, n, k) in `dtype`, boxed (the dtype's case type).
pub fn hgemm_case(m: u64, n: u64, k: u64, v: u32, seed: u64, dtype: Dtype) -> Box<dyn BenchCase> {
    match dtype {
        Dtype::F16 => Box::new(HgemmCase::<f16>::typed(m, n, k, v, seed)),
        Dtype::Bf16 => Box::new(HgemmCase::<bf16>::typed(m, n, k, v, seed)),
    }
}

/// Launches a user's GEMM-signature kernel on set `s` (A, B, C, M, N, K).
pub fn launch_user_gemm<E: Elem>(
    gpu: &Gpu,
    u: &UserKernel,
    s: &GemmSet<E>,
    shape: &Shape,
) -> Result<()> {
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

impl<E: Elem> BenchCase for HgemmCase<E> {
    fn id(&self) -> CaseId {
        let shape = gemm_shape(self.m, self.n, self.k);
        let mut id = match &self.user {
            Some(u) => CaseId::new("hgemm", "user", &user::variant_label(u), shape),
            None => CaseId::new("hgemm", "ours", &format!("v{}", self.variant), shape),
        };
        id.dtype = E::DTYPE.name().into();
        id
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
        let cpu = check::check_against_cpu(
            gpu,
            &s.a,
            &s.b,
            &s.c,
            Epilogue::Plain,
            m,
            n,
            k,
            Tolerance::gemm(E::DTYPE),
        )?;
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

/// Fixed GEMM check shapes: 1x1x1, primes, off-tile, N/K not multiples of 8, large,
/// STREAM_K_SHAPE, PINGPONG_SHAPE and A_MULTICAST_SHAPE.
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
    STREAM_K_SHAPE,
    PINGPONG_SHAPE,
    A_MULTICAST_SHAPE,
];

/// A shape whose 128x128 tiles HGEMM v15 cuts along K on a 132-SM H200 (16 cluster tiles of
/// 16 k-tiles over 66 clusters: ~5 units a tile, M, N and K off the tile); the random check
/// shapes (up to 320) never have enough k-tiles to be cut.
pub const STREAM_K_SHAPE: (u64, u64, u64) = (200, 2040, 1000);

/// A shape HGEMM v17 runs on its pingpong tile on a 132-SM H200 (64 x 256 per warpgroup): 33
/// tile rows (a CTA wholly below M), N off the tile, 9 k-tiles with a K tail (the 4-stage ring
/// wraps between the two warpgroups' tiles), 2-3 tiles a cluster (the second warpgroup one
/// short on some).
pub const PINGPONG_SHAPE: (u64, u64, u64) = (2056, 2056, 520);

/// A shape HGEMM v19 runs on its 128x64 pairs along N on a 132-SM H200 (no width of v18 suits
/// it): 3 tile rows, 33 column tiles (the last pair's second CTA wholly right of N), 8 k-tiles
/// and a K tail; the random check shapes (up to 320) never fill enough of the GPU for it.
pub const A_MULTICAST_SHAPE: (u64, u64, u64) = (300, 2056, 520);

/// The check shapes of the epilogue families (GEMM+bias+GELU, GEMM+bias+residual): the first
/// eight, M = 1 to 1000, each M path's small shapes and 16x4096x4096 on the slabs,
/// STREAM_K_SHAPE, PINGPONG_SHAPE and A_MULTICAST_SHAPE.
pub fn epilogue_check_shapes() -> Vec<Shape> {
    CHECK_SHAPES[..8]
        .iter()
        .chain([&STREAM_K_SHAPE, &PINGPONG_SHAPE, &A_MULTICAST_SHAPE])
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
    summary: "Tensor Core HGEMM C = A.B (row-major fp16, or bf16 with --dtype bf16; fp32 \
              accumulation): ours and cuBLAS",
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
            shapes: "M >= 65 where a tile of 128 x 256/192/128/64 keeps half of the tensor \
                     cores' time on C; N, K multiples of 8",
            runs: "v32: the persistent warp-specialized wgmma kernel (TMA multicast over a \
                   cluster of 2) at the width with the fewest waves per speed (v13), results \
                   stored by TMA from stmatrix'ed shared memory (v14), the 128x256 tile's \
                   half a tile at a time for a fourth stage (v18), its second half in the \
                   ring stage its last k-tile emptied (v21), the wgmma descriptors moved on \
                   by adds (v22), the 64-wide tile at mid M too (v23), the cluster met once, \
                   relaxed, and left on the producer's tail (v32)",
            why: "0.95x / 0.99-1.01x / 1.01x cuBLAS at 2048 / 4096 / 8192^3, 1.03x at \
                  1024x14336x4096 (v22, S43a, H200); v23 +4-6% over v22 at 256x4096xK (S43d, \
                  H100); v32 9-11% faster than v23 at 256x4096^2, 5% at 2048^3 (S46a, H100)",
        },
        Dispatch {
            shapes: "grids of a wave or more of 128x256 tiles (at most 1/4 of their area \
                     outside C) that no width above took",
            runs: "v12: the same kernel at 128x256, 4-stage ring, the coalesced store",
            why: "Hopper's tensor cores from shared memory: 1.6-1.65x v11 (S34)",
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
            shapes: "65 <= M <= 512 where v7 would split K and no width above suits the shape",
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
        Dispatch {
            shapes: "bf16 (--dtype bf16: v14, v18 / v21 / v22 / v23 / v24 / v32 at their widths, \
                     v19 with its pairs): \
                     where that kernel or v12's runs in fp16",
            runs: "the same warp-specialized kernel in bf16 (wgmma .bf16, bf16 tensor maps and \
                   stores; cuda/gemm/bf16_paths.cuh)",
            why: "the same instructions but the type: the tensor cores' bf16 rate is fp16's \
                  (figures: docs/perf-log.md)",
        },
        Dispatch {
            shapes: "bf16: every other shape on the 16-byte path (any M)",
            runs: "v9's 128x64 wgmma tile over all of K, in bf16 (sm_90a)",
            why: "one bf16 tile for the shapes fp16 splits among the slabs, v10 and the WMMA \
                  tiles, none of which has a bf16 form",
        },
        Dispatch {
            shapes: "bf16: N or K not a multiple of 8, unaligned operands, or no sm_90a",
            runs: "v1's WMMA kernel with bf16 fragments",
            why: "correct at every shape (the check's awkward ones), not fast",
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
    check_cases: |s, vs, pick, dtype| {
        let (m, n, k) = dims(s);
        per_variant(vs, |v| hgemm_case(m, n, k, v, pick.seed_or(m + n), dtype))
    },
    bench_cases: |r| {
        let (m, n, k) = dims(&r.shape);
        let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
        for imp in &r.impls {
            match imp.as_str() {
                "cublas" => out.push(Box::new(CublasGemmCase::new(m, n, k, r.dtype, r.seed))),
                _ => {
                    for &v in &r.variants {
                        out.push(hgemm_case(m, n, k, v, r.seed, r.dtype));
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
    bf16: Some(Bf16Forms {
        variant: takes_bf16,
        impls: &["ours", "cublas"],
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{gemm_gelu, gemm_residual};
    use std::ptr::{null, null_mut};

    /// The C tables' bf16 column: each family's best variant has a bf16 form, and so have the
    /// variants in BF16_FORMS (HGEMM v14 and v19, GEMM+bias+GELU v7 and v12); a bf16 launch of
    /// any other variant is refused before anything is launched (cudaErrorInvalidValue, no GPU
    /// touched), as is one with bad arguments.
    #[test]
    fn only_the_best_variants_and_the_candidates_have_bf16_launchers() {
        let with = |f: fn(u32) -> bool, n: usize| (1..=n as u32 + 1).filter(|&v| f(v)).collect();
        let with: Vec<Vec<u32>> = vec![
            with(takes_bf16, variants().len()),
            with(gemm_gelu::takes_bf16, gemm_gelu::variants().len()),
            with(gemm_residual::takes_bf16, gemm_residual::variants().len()),
        ];
        assert_eq!(
            with,
            [
                BF16_FORMS.to_vec(),
                gemm_gelu::BF16_FORMS.to_vec(),
                vec![gemm_residual::BEST]
            ]
        );
        assert!(BF16_FORMS.contains(&BEST) && gemm_gelu::BF16_FORMS.contains(&gemm_gelu::BEST));
        assert!(!takes_bf16(0) && !takes_bf16(u32::MAX));
        assert_eq!(best_in(Dtype::Bf16), BEST);
        assert_eq!(best_in(Dtype::F16), best());
        let p = 16 as *mut c_void; // never dereferenced: the launchers refuse first
        let s = null_mut();
        // SAFETY: every call below is refused by the launcher's argument checks (a variant
        // without a bf16 form, or a null pointer) before any pointer is used or work enqueued.
        unsafe {
            assert_eq!(ffi::rl_hgemm_bf16(11, p, p, p, 8, 8, 8, s), 1);
            assert_eq!(ffi::rl_hgemm_bf16(BEST as i32, null(), p, p, 8, 8, 8, s), 1);
            assert_eq!(ffi::rl_hgemm_bf16(BEST as i32, p, p, p, 0, 8, 8, s), 1);
            assert_eq!(ffi::rl_gemm_bias_gelu_bf16(4, p, p, p, p, 8, 8, 8, 0, s), 1);
            let (g, r5) = (gemm_gelu::BEST as i32, gemm_residual::BEST as i32);
            assert_eq!(ffi::rl_gemm_bias_gelu_bf16(g, p, p, p, p, 8, 8, 8, 2, s), 1);
            assert_eq!(ffi::rl_gemm_residual_bf16(4, p, p, p, p, p, 8, 8, 8, s), 1);
            // C and R overlapping (the same buffer)
            let (c, r) = (256 as *mut c_void, 256 as *const c_void);
            assert_eq!(ffi::rl_gemm_residual_bf16(r5, p, p, p, r, c, 8, 8, 8, s), 1);
        }
    }

    /// HGEMM v15's Stream-K schedule (cuda/gemm/ws_stream_k.cuh), walked on the host by the
    /// same code the kernel runs: every (tile, k-tile) in exactly one unit, each cluster's one
    /// contribution first in its order, each owner gathering exactly the clusters that hold
    /// the rest of its tile. At the cuts v15 makes (the partial wave and one wave, or every
    /// tile below a wave), at none, at every tile, and at fewer iterations than clusters.
    #[test]
    fn stream_k_units_cover_every_iteration_once_and_owners_gather_their_contributors() {
        let check = |t: i32, w: i32, k: i32, sk: i32| {
            // SAFETY: plain integers in, an integer out; host code only.
            let r = unsafe { ffi::rl_gemm_stream_k_units_check(t, w, k, sk) };
            assert_eq!(r, 0, "{t} tiles, {w} clusters, {k} k-tiles, {sk} cut");
        };
        for w in [1, 2, 3, 7, 33, 66, 132] {
            for t in [1, 2, 5, 16, 32, 58, 65, 66, 67, 100, 124, 172, 256, 513] {
                for k in [1, 2, 3, 5, 16, 64, 172] {
                    let v15 = if t < w { t } else { t % w + w };
                    for sk in [0, v15.min(t), t, 1, t / 2] {
                        check(t, w, k, sk);
                    }
                }
            }
        }
        // SAFETY: as above.
        unsafe {
            assert_eq!(ffi::rl_gemm_stream_k_units_check(0, 66, 4, 0), 1);
            assert_eq!(ffi::rl_gemm_stream_k_units_check(10, 66, 4, 11), 1);
        }
    }

    /// The warp-specialized kernel's tile order (WsSchedule), walked on the host by the
    /// kernel's own code: every tile of C taken once and each cluster pair sharing its
    /// operand, for HGEMM v19's pairs along N (sharing A) and v18's 128x256 pairs along M
    /// (sharing B), at tile multiples and off them, odd tile counts (a CTA past C), one tile,
    /// and short last raster groups.
    #[test]
    fn ws_schedule_takes_every_tile_once_and_pairs_share_their_operand() {
        for along_n in [1, 0] {
            for m in [1, 65, 128, 129, 200, 256, 300, 512, 1000, 1100, 2056, 4096] {
                for n in [8, 64, 128, 136, 200, 2056, 4096, 4104, 11008, 14336] {
                    // SAFETY: plain integers in, an integer out; host code only.
                    let r = unsafe { ffi::rl_gemm_ws_schedule_check(m, n, along_n) };
                    assert_eq!(r, 0, "{m}x{n}, along N: {along_n}");
                }
            }
        }
        // SAFETY: as above.
        assert_eq!(unsafe { ffi::rl_gemm_ws_schedule_check(0, 8, 1) }, 1);
    }

    /// HGEMM v27's split-K pair, walked on the host with the kernel's own code: each group
    /// takes every tile of C once, a group's CTAs share B, and the two groups' k-tile ranges
    /// split K without gap or overlap, for groups of two CTAs and of one, at tile multiples and
    /// off them (a CTA below M), two k-tiles and odd counts.
    #[test]
    fn ws_pair_splits_every_tile_and_its_k_tiles_once() {
        for solo in [0, 1] {
            for m in [1, 65, 128, 130, 200, 256, 300, 512] {
                for n in [8, 128, 136, 2056, 4040, 4096, 11008] {
                    for k_tiles in [2, 3, 17, 64, 172] {
                        // SAFETY: plain integers in, an integer out; host code only.
                        let r = unsafe { ffi::rl_gemm_ws_pair_check(m, n, k_tiles, solo) };
                        assert_eq!(r, 0, "{m}x{n}, {k_tiles} k-tiles, solo {solo}");
                    }
                }
            }
        }
        // SAFETY: as above.
        assert_eq!(unsafe { ffi::rl_gemm_ws_pair_check(256, 4096, 1, 0) }, 1);
    }

    /// HGEMM v17's ring under its pingpong schedule (cuda/gemm/ws_pingpong.cuh), simulated on
    /// the host with the kernel's own bookkeeping: with the warpgroups' hand-off every consumer
    /// reads the k-tile it wants and no agent is stuck, at v17's 4 stages and others, k-tiles
    /// fewer than, equal to and more than the stages (the ring wrapping inside a tile and
    /// between the warpgroups'), odd and even tile counts, many interleavings. Without the
    /// hand-off the same model finds a warpgroup reading the other's bytes (a parity wait two
    /// phases behind), so the check can fail.
    #[test]
    fn pingpong_ring_reads_each_k_tile_once_with_the_hand_off_and_fails_without_it() {
        let check = |stages: i32, tiles: i32, k: i32, seed: u32, handoff: i32| {
            // SAFETY: plain integers in, an integer out; host code only.
            unsafe { ffi::rl_gemm_pingpong_ring_check(stages, tiles, k, seed, handoff) }
        };
        let mut without = 0;
        for stages in [2, 3, 4, 5] {
            for tiles in [1, 2, 3, 4, 7] {
                for k in [1, 2, 3, 4, 5, 9, 16] {
                    for seed in 0..40u32 {
                        let r = check(stages, tiles, k, seed, 1);
                        assert_eq!(r, 0, "{stages} stages, {tiles} tiles of {k}, seed {seed}");
                        if check(stages, tiles, k, seed, 0) == 2 {
                            without += 1;
                        }
                    }
                }
            }
        }
        assert!(
            without > 100,
            "the model without the hand-off failed only {without} times"
        );
        assert_eq!(check(1, 4, 4, 0, 1), 1);
        assert_eq!(check(4, 0, 4, 0, 1), 1);
    }

    /// GEMM+bias+GELU v22's hand-offs (cuda/gemm/ws_epilogue_warps_model.cuh): the consumers
    /// stage each tile but the CTA's last, the epilogue warps find its held stage with the
    /// kernel's own bookkeeping (ws_epi_tile_held), store it, give the stage back and free the
    /// staging. Every interleaving reads what it wants and none is stuck, at 2-5 stages, one to
    /// seven tiles, k-tiles fewer than, equal to and more than the stages. Each mutation of one
    /// hand-off fails: the held stage one off (a wrong read or a stage overwritten), no initial
    /// free arrival (a deadlock), no wait on free (a staging overwritten).
    #[test]
    fn epilogue_warps_hand_offs_hold_and_each_mutation_fails() {
        let check = |stages: i32, tiles: i32, k: i32, seed: u32, mutation: i32| {
            // SAFETY: plain integers in, an integer out; host code only.
            unsafe { ffi::rl_gemm_epilogue_warps_check(stages, tiles, k, seed, mutation, 0, 0) }
        };
        let mut caught = [0; 4];
        for stages in [2, 3, 4, 5] {
            for tiles in [1, 2, 3, 4, 7] {
                for k in [1, 2, 3, 4, 5, 9, 16] {
                    for seed in 0..30u32 {
                        let r = check(stages, tiles, k, seed, 0);
                        assert_eq!(r, 0, "{stages} stages, {tiles} tiles of {k}, seed {seed}");
                        for m in 1..4 {
                            let r = check(stages, tiles, k, seed, m);
                            let expected: &[i32] = match m {
                                1 => &[2, 3, 4],
                                2 => &[4],
                                _ => &[5],
                            };
                            if expected.contains(&r) {
                                caught[m as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
        // 4200 runs each; a single tile has nothing for the epilogue warps (840 of them).
        assert_eq!(caught[1], 3360, "the held stage one off, caught");
        assert_eq!(caught[2], 4200, "no initial free arrival, caught");
        assert!(
            caught[3] > 300,
            "no wait on free caught {} times",
            caught[3]
        );
        assert_eq!(check(1, 4, 4, 0, 0), 1);
        assert_eq!(check(4, 4, 4, 0, 4), 1);
    }

    /// GEMM+bias+GELU v23's and v25's hand-offs (the same model): the consumers store their
    /// held halves and give the stage back in their next tile's first k-tile; v25 starts
    /// warpgroup 1's last tile two k-tiles after warpgroup 0's. Every interleaving holds at
    /// the kernels' ring of 4 stages and more (WsCfgStaggeredLast asserts stages >= stagger +
    /// 2), and v23 at every ring; with a ring of stagger + 1 stages, v25 is stuck in every run
    /// where warpgroup 1 still holds a stage of its previous tile (several tiles) and the last
    /// tile staggers: the bound is needed, not only sufficient. The free-wait mutations still
    /// fail.
    #[test]
    fn held_half_and_staggered_last_tile_hand_offs_hold_at_the_kernels_ring() {
        let check = |stages: i32, tiles: i32, k: i32, seed: u32, mutation: i32, stagger: i32| {
            // SAFETY: plain integers in, an integer out; host code only.
            unsafe {
                ffi::rl_gemm_epilogue_warps_check(stages, tiles, k, seed, mutation, 1, stagger)
            }
        };
        let (mut stuck, mut runs, mut caught) = (0, 0, [0; 4]);
        for tiles in [1, 2, 3, 4, 7] {
            for k in [1, 2, 3, 4, 5, 9, 16] {
                for seed in 0..30u32 {
                    for stages in [2, 3, 4, 5] {
                        let r = check(stages, tiles, k, seed, 0, 0);
                        assert_eq!(
                            r, 0,
                            "v23: {stages} stages, {tiles} tiles of {k}, seed {seed}"
                        );
                    }
                    for stages in [4, 5, 6] {
                        let r = check(stages, tiles, k, seed, 0, 2);
                        assert_eq!(
                            r, 0,
                            "v25: {stages} stages, {tiles} tiles of {k}, seed {seed}"
                        );
                        for m in 2..4 {
                            let expected = if m == 2 { 4 } else { 5 };
                            if check(stages, tiles, k, seed, m, 2) == expected {
                                caught[m as usize] += 1;
                            }
                        }
                    }
                    if tiles > 1 && k > 2 {
                        runs += 1;
                        if check(3, tiles, k, seed, 0, 2) == 4 {
                            stuck += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(
            stuck, runs,
            "a ring of 3 with a stagger of 2: stuck in {stuck} of {runs}"
        );
        assert_eq!(caught[2], 3150, "no initial free arrival, caught");
        assert!(
            caught[3] > 200,
            "no wait on free caught {} times",
            caught[3]
        );
        assert_eq!(check(4, 4, 4, 0, 1, 2), 1, "mutation 1 is v22's alone");
        assert_eq!(check(4, 4, 4, 0, 0, -1), 1);
        // SAFETY: as above.
        assert_eq!(
            unsafe { ffi::rl_gemm_epilogue_warps_check(4, 4, 4, 0, 0, 0, 2) },
            1
        );
    }
}
