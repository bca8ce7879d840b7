//! GPU tests: every HGEMM variant and every path of the GEMM family's epilogues (bias+GELU,
//! bias+residual) is correct at odd shapes (against float64 CPU and cuBLAS / cuBLASLt), with
//! random inputs and poisoned outputs; and so are the bf16 forms (HGEMM's and GEMM+bias+GELU's
//! BF16_FORMS, GEMM+bias+residual v11) against float64 and the libraries in bf16.

use roofline_lab::gpu::Gpu;
use roofline_lab::kernels::gemm::{self, HgemmCase};
use roofline_lab::kernels::gemm_gelu::{self, GeluImpl, GemmGeluCase};
use roofline_lab::kernels::gemm_residual::{self, GemmResidualCase, ResidualImpl};
use roofline_lab::measure::BenchCase;

/// Off-tile shapes: tiny, primes, N and K not multiples of 8, one past a tile, decode-like.
const SHAPES: &[(u64, u64, u64)] = &[
    (1, 1, 1),
    (127, 257, 129),
    (33, 17, 5),
    (129, 7, 33),
    (20, 300, 3),
    (128, 128, 128),
    (129, 264, 72),
    (260, 600, 37),
    // K >= 1024 with few tiles: the cluster split-K paths (v7, a 128x128 tile split 2 here; v9
    // on the wgmma tile), also in the fused test, which takes the first 13 shapes.
    (256, 2048, 2048),
    // v7's 128x128 tile of 8 warps split 2 ways (64 tiles -> 128 CTAs), every dimension off
    // its tile; v9's wgmma tile with a partial last row and column tile and a K tail.
    (500, 2040, 2056),
    // v7's split 2 again, v9's wgmma tile with M off the tile and a K tail of 8 (17 k-tiles
    // and a partial one).
    (200, 4096, 1096),
    // v8 splits the 64x128 tile 2 ways; v9's wgmma tiles with a partial last column tile.
    (256, 1960, 2048),
    (16, 4096, 4096),
    (513, 1024, 256),
    (1000, 1000, 1000),
];

/// v6's 256x128 tile at one tile per SM (128 tiles, partial last row and column of tiles)
/// with the fused parked epilogue: whole warp tiles (its loop, in row parts from GEMM+GELU v3)
/// and partial ones at the edges.
const PARKED_SHAPES: &[(u64, u64, u64)] = &[(2000, 1928, 72)];

/// M <= 16 where v8 runs the GEMV's slab kernels (one row, W as the A operand for 2..8 rows,
/// 16-row MMA groups; a cluster of 2 below 132 slabs), with N and K off every tile; and 2..8
/// rows with K % 16 == 0, where they run GEMV v14's issue-first loop, in a cluster (65 slabs,
/// the last one partial) and without (129 slabs, 64 groups of K).
const SLAB_SHAPES: &[(u64, u64, u64)] = &[
    (1, 4104, 1001),
    (5, 2120, 77),
    (11, 8200, 130),
    (6, 4104, 1040),
    (3, 8200, 1024),
];

/// 9..64 rows where v8 runs the GEMV's TMA slabs (N, K multiples of 8): 2 m-tiles in a
/// cluster of 2, 3 m-tiles in a cluster with a partial last slab and stage, 4 m-tiles without
/// a cluster (partial slab, 2 stages), M = 64 at N = K = 4096 (the fusion sweep's shape), and
/// 12 rows (1 m-tile) with K = 1000. The 64-row wgmma tile of v10 takes the first four
/// with K split over 2, 2, 1 and 2 CTAs, and 40x1096x2056 over 4 (18 column tiles, the last
/// partial, and 33 k-tiles, the last partial: a last split of 6).
const WIDE_SHAPES: &[(u64, u64, u64)] = &[
    (17, 2560, 2048),
    (40, 4104, 1000),
    (64, 8200, 160),
    (64, 4096, 4096),
    (12, 8192, 1000),
    (40, 1096, 2056),
];

/// Whole tiles of v6's 256x128 tile without a K split (K < 1024, or too many tiles for a
/// cluster split to stay resident), which v11 runs on the lean loop (GEMM+GELU v4 on its fused
/// form): one wave of 128 tiles, and two waves of 256 in 16-row raster groups.
const LEAN_SHAPES: &[(u64, u64, u64)] = &[(2048, 2048, 1024), (4096, 2048, 512)];

/// Grids of a wave or more of 128x256 tiles, which v12 runs on its persistent warp-specialized
/// wgmma kernel (GEMM+GELU v5 with its functor; clusters of 2 along M sharing B by multicast):
/// M, N, K all off the tile with a K tail (128 tiles, one each); an odd number of tile rows (the
/// last cluster's second CTA wholly below M), a short last raster group and 2 tiles for some
/// clusters, K = 72; K = 8, less than one k-tile, ~4 tiles per cluster over two raster groups;
/// 9 k-tiles (the 4-stage ring wraps inside a tile); 200 rows (one cluster row, its second
/// tile partial) over 128 column tiles. v17 runs all five on its pingpong tile (64 x 256 per
/// warpgroup): 2056 rows are 33 tile rows (a CTA wholly below M), K = 72 and K = 8 skip 2 and 1
/// k-tiles of the other warpgroup's, 9 k-tiles wrap the ring between the warpgroups' tiles, and
/// the clusters hold 1-8 tiles (odd counts: the second warpgroup one tile short, or idle).
const WS_SHAPES: &[(u64, u64, u64)] = &[
    (1000, 4000, 1000),
    (2056, 2056, 72),
    (4096, 4096, 8),
    (1536, 8192, 520),
    (200, 32768, 136),
];

/// v13's tile widths (its cost model's choice on a 132-SM H200, 66 clusters of 2), each with M,
/// N or K off the tile: 128x64 with an odd number of tile rows and a K tail (777x1000x72), at
/// 200 rows (200x4104x136); 128x128 with K = 1000 (15 k-tiles and 40); 128x192 with N off the
/// tile's three boxes (777x3000x520); 128x256 in one partial wave with K = 8.
const WS13_SHAPES: &[(u64, u64, u64)] = &[
    (777, 1000, 72),
    (200, 4104, 136),
    (1000, 2040, 1000),
    (777, 3000, 520),
    (333, 7000, 8),
];

/// v19's 128x64 pairs along N (A shared by multicast; shapes no width of v18 suits, 65..512
/// rows, on a 132-SM H200): an odd number of tile rows and of column tiles (the last pair's
/// second CTA wholly right of N) with a K tail (300x2056x520); K = 8, less than one k-tile, and
/// a second tile row of 8 (136x4096x8); fewer than 128 rows (the second half of A's box partly
/// past M), two tiles for most clusters, a K tail (100x16384x200); the LLM shape 256x4096²
/// (64 k-tiles: the 8-stage ring wraps 8 times a tile).
const V19_SHAPES: &[(u64, u64, u64)] = &[
    (300, 2056, 520),
    (136, 4096, 8),
    (100, 16384, 200),
    (256, 4096, 4096),
];

/// v15's cut tiles (Stream-K; its cost model's choice on 66 clusters): 128x128 tiles cut into
/// 2-3 units each (256x4096x1024), ~5 units of ~4 k-tiles with M, N and K off the tile
/// (200x2040x1000), an odd number of tile rows (a CTA wholly below M: its sums are zeros that
/// still meet at the owner; 300x2048x768); 128x192 tiles over one wave and a part
/// (640x7168x2048); 128x256 tiles, 100 of them (300x12800x1024).
const SK_SHAPES: &[(u64, u64, u64)] = &[
    (256, 4096, 1024),
    (200, 2040, 1000),
    (300, 2048, 768),
    (640, 7168, 2048),
    (300, 12800, 1024),
];

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_hgemm_variant_matches_references_at_odd_shapes() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let variants = gemm::variants();
    assert!(variants.len() >= 4, "{variants:?}");
    let mut failures = Vec::new();
    for (v, _) in &variants {
        for (i, &(m, n, k)) in SHAPES
            .iter()
            .chain(larger_path_shapes())
            .chain(SK_SHAPES)
            .enumerate()
        {
            let mut c = HgemmCase::new(m, n, k, *v, 100 + i as u64);
            let r = c.verify(&gpu).expect("runs");
            if !r.passed {
                failures.push(format!("v{v} {m}x{n}x{k}: {}", r.detail));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The shapes of the paths that open at larger sizes: the slabs, the few-row wgmma tile, the
/// lean loop, the warp-specialized kernel, its widths and v19's pairs (v15's cut tiles apart:
/// SK_SHAPES).
fn larger_path_shapes() -> impl Iterator<Item = &'static (u64, u64, u64)> {
    SLAB_SHAPES
        .iter()
        .chain(WIDE_SHAPES)
        .chain(LEAN_SHAPES)
        .chain(WS_SHAPES)
        .chain(WS13_SHAPES)
        .chain(V19_SHAPES)
}

/// Every M path an epilogue takes: the first 13 odd shapes (tiles, split-K, the mid-M wgmma
/// tile), the parked tiles, the larger paths' shapes and v15's cut tiles.
fn epilogue_shapes() -> impl Iterator<Item = (u64, u64, u64)> {
    SHAPES[..13]
        .iter()
        .chain(PARKED_SHAPES)
        .chain(larger_path_shapes())
        .chain(SK_SHAPES)
        .copied()
}

/// Verifies one case on the GPU; a failure or an error goes to `failures`, named by `what`.
fn verify_into(gpu: &Gpu, mut c: impl BenchCase, what: String, failures: &mut Vec<String>) {
    match c.verify(gpu) {
        Ok(r) if r.passed => {}
        Ok(r) => failures.push(format!("{what}: {}", r.detail)),
        Err(e) => failures.push(format!("{what}: error {e:#}")),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemm_gelu_paths_match_float64_for_both_gelu_forms() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut failures = Vec::new();
    let fused: Vec<u32> = gemm_gelu::variants().iter().map(|(v, _)| *v).collect();
    let best = gemm::best();
    for (m, n, k) in epilogue_shapes() {
        for kind in [0, 1] {
            let mut imps: Vec<GeluImpl> = fused.iter().map(|v| GeluImpl::Fused(*v)).collect();
            imps.push(GeluImpl::Unfused(best));
            imps.push(GeluImpl::UnfusedCublas);
            if kind == 0 {
                imps.push(GeluImpl::Cublaslt);
            }
            for imp in imps {
                let c = GemmGeluCase::new(m, n, k, imp, kind, 7 + m);
                let what = format!("{imp:?} gelu{kind} {m}x{n}x{k}");
                verify_into(&gpu, c, what, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The residual epilogue, written once, on every M path of every variant: each case is checked
/// against float64 and cuBLASLt's BIAS epilogue with beta = 1 on C = R.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gemm_residual_paths_match_float64_and_cublaslt() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut failures = Vec::new();
    let mut imps: Vec<ResidualImpl> = gemm_residual::variants()
        .iter()
        .map(|(v, _)| ResidualImpl::Ours(*v))
        .collect();
    imps.push(ResidualImpl::Cublaslt);
    for (m, n, k) in epilogue_shapes() {
        for &imp in &imps {
            let c = GemmResidualCase::new(m, n, k, imp, 11 + m);
            verify_into(&gpu, c, format!("{imp:?} {m}x{n}x{k}"), &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The bf16 paths' own edges (cuda/gemm/bf16_paths.cuh), beside the fp16 shapes above, which
/// they also run: v9's 128x64 wgmma tile at the M <= 64 that fp16 gives the slabs and v10 (one
/// row, 16 rows over a 4096² B), K < 64 on it (one partial k-tile) and a K tail, a tall thin N,
/// a grid short of a wave (1024³: v14's kernel at 128x64), and a square at 128x256.
const BF16_SHAPES: &[(u64, u64, u64)] = &[
    (1, 4096, 4096),
    (16, 4096, 4096),
    (64, 512, 40),
    (8, 1024, 8),
    (96, 2048, 1032),
    (3000, 64, 1024),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
];

/// The fp16 tests' shapes (the warp-specialized kernel's WS_SHAPES and its widths' WS13_SHAPES
/// among them; the others on v9's tile or, off the 16-byte path, v1's) and the bf16 paths' own.
fn bf16_shapes() -> impl Iterator<Item = (u64, u64, u64)> {
    SHAPES
        .iter()
        .chain(larger_path_shapes())
        .chain(BF16_SHAPES)
        .copied()
}

/// HGEMM's bf16 forms (gemm::BF16_FORMS) against float64 (bf16 inputs, GEMM_BF16's
/// tolerance) and cuBLAS in bf16, element by element, at every shape; cuBLAS's own bf16 result
/// against float64 at the same shapes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn hgemm_bf16_form_matches_float64_and_cublas_at_odd_shapes() {
    use half::bf16;
    use roofline_lab::dtype::Dtype;
    use roofline_lab::kernels::cublas_gemm::CublasGemmCase;
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut failures = Vec::new();
    let vs: Vec<u32> = gemm::variants()
        .iter()
        .map(|(v, _)| *v)
        .filter(|&v| gemm::takes_bf16(v))
        .collect();
    assert_eq!(
        vs,
        gemm::BF16_FORMS,
        "the bf16 forms: best's and the candidates'"
    );
    for (i, (m, n, k)) in bf16_shapes().enumerate() {
        let seed = 300 + i as u64;
        for &v in &vs {
            let c = HgemmCase::<bf16>::typed(m, n, k, v, seed);
            verify_into(&gpu, c, format!("v{v} bf16 {m}x{n}x{k}"), &mut failures);
        }
        let c = CublasGemmCase::new(m, n, k, Dtype::Bf16, seed);
        verify_into(&gpu, c, format!("cuBLAS bf16 {m}x{n}x{k}"), &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fused forms in bf16 (gemm_gelu::BF16_FORMS, both GELU forms, and GEMM+bias+residual
/// v11: the functors' bf16 forms, the bias and R in bf16) on every M path
/// the bf16 paths take, against float64, with cuBLASLt's bf16 epilogues beside them
/// (GELU_BIAS, tanh; BIAS with beta = 1 on C = R, which is also the residual form's
/// element-by-element reference).
#[test]
#[ignore = "needs a CUDA GPU"]
fn epilogue_bf16_forms_match_float64_and_cublaslt() {
    use half::bf16;
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut failures = Vec::new();
    let gelu_v = gemm_gelu::variants()
        .iter()
        .map(|(v, _)| *v)
        .filter(|&v| gemm_gelu::takes_bf16(v))
        .collect::<Vec<_>>();
    let res_v = gemm_residual::variants()
        .iter()
        .map(|(v, _)| *v)
        .filter(|&v| gemm_residual::takes_bf16(v))
        .collect::<Vec<_>>();
    assert_eq!(
        gelu_v,
        gemm_gelu::BF16_FORMS,
        "the fused bf16 forms: best's and the candidates'"
    );
    assert_eq!(
        res_v,
        [gemm_residual::BEST],
        "the residual's bf16 form: best's alone"
    );
    let shapes = epilogue_shapes().chain(BF16_SHAPES.iter().copied());
    for (m, n, k) in shapes {
        for kind in [0, 1] {
            let mut imps: Vec<GeluImpl> = gelu_v.iter().map(|v| GeluImpl::Fused(*v)).collect();
            if kind == 0 {
                imps.push(GeluImpl::Cublaslt);
            }
            for imp in imps {
                let c = GemmGeluCase::<bf16>::typed(m, n, k, imp, kind, 9 + m);
                let what = format!("{imp:?} bf16 gelu{kind} {m}x{n}x{k}");
                verify_into(&gpu, c, what, &mut failures);
            }
        }
        let mut imps: Vec<ResidualImpl> = res_v.iter().map(|v| ResidualImpl::Ours(*v)).collect();
        imps.push(ResidualImpl::Cublaslt);
        for imp in imps {
            let c = GemmResidualCase::<bf16>::typed(m, n, k, imp, 13 + m);
            verify_into(&gpu, c, format!("{imp:?} bf16 {m}x{n}x{k}"), &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
