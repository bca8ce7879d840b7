//! GPU tests: GEMV (every variant, M = 1..16 and beyond, odd N and K), ReLU/GELU (tails,
//! both GELU forms) and LayerNorm (hidden sizes off the vector width) match float64.

use roofline_lab::gpu::Gpu;
use roofline_lab::kernels::elementwise::{self, ElementwiseCase, Op};
use roofline_lab::kernels::gemv::{self, GemvCase, GemvImpl};
use roofline_lab::kernels::layernorm::{self, LayerNormCase};
use roofline_lab::measure::BenchCase;

fn run_all(gpu: &Gpu, cases: Vec<Box<dyn BenchCase>>) -> Vec<String> {
    let mut failures = Vec::new();
    for mut c in cases {
        let name = c.id().describe();
        match c.verify(gpu) {
            Ok(v) if v.passed => {}
            Ok(v) => failures.push(format!("{name}: {}", v.detail)),
            Err(e) => failures.push(format!("{name}: error {e:#}")),
        }
    }
    failures
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemv_every_variant_at_decode_and_odd_shapes() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let shapes = [
        (1, 4096, 4096),
        (3, 4096, 4096),
        (16, 8192, 8192),
        (1, 1, 1),
        (5, 7, 9),
        (1, 4100, 4096),
        (2, 4096, 4097),
        (8, 4104, 1000),
        (17, 520, 777),
        (40, 256, 4096),
        // v5's slab paths with partial slabs and odd K: one row without and with the cluster
        // of 2, tensor-core slab without a cluster (12 rows).
        (1, 8200, 1031),
        (1, 4104, 4095),
        (12, 8200, 999),
        // v6's W-as-A slabs (2..8 rows): without a cluster (129 slabs, odd K) and with the
        // cluster of 2 (65 slabs, the last one partial, odd K).
        (3, 8200, 999),
        (5, 4104, 4095),
        (8, 4096, 2048),
        // v7's lean loop (K % 16 == 0): 2..8 rows in the cluster of 2 with a partial last
        // slab and 65 groups (warps with unequal counts), 9..16 rows without a cluster (129
        // slabs, the last one partial) and with it.
        (6, 4104, 1040),
        (12, 8200, 1024),
        (11, 4096, 4096),
        // v7's batches: 16 groups per warp (2..8 rows, 129 slabs, the last one partial).
        (5, 8200, 4096),
        // v8's TMA slabs (9..16 rows, N and K multiples of 8; the 9..16-row shapes above with
        // K % 8 == 0 take them too): a partial last stage of 8 rows of K, and K = 8 in a
        // cluster of 2 whose first CTA has no stage at all.
        (9, 8192, 136),
        (16, 4104, 8),
        // v10's 2..8-row loop (two groups in flight; the 2..8-row v7 shapes above take it
        // too): 65 groups (warps with 4 and 5, an odd last group), and one group in all (15
        // warps without any).
        (7, 8200, 1040),
        (3, 8192, 16),
        // The one-row slab without a cluster (129 slabs, the last one partial), and with more
        // of x to stage than one 16-byte word per thread.
        (1, 8200, 1040),
        (1, 8192, 9000),
        // v11's one-row slab in a cluster with x staged first (XFAST), 65 slabs: the last
        // one's lanes past N load column N - 8, whose sums must not be stored.
        (1, 4104, 1000),
        // v12's 2..8 rows in units of 32 rows of K (K % 32 == 0; the v10 shapes above with
        // K % 32 == 16 fall back to v10's loop): in a cluster with a partial last slab and
        // ranks of 16 and 17 units, without a cluster (warps with 2 and 3 units), one unit.
        (6, 4104, 1056),
        (7, 8200, 1056),
        (3, 8192, 32),
        // v12's 9..16 rows on that loop (two halves of x per W fragment; rows past M load
        // row M - 1): in a cluster with a partial last slab and ranks of 16 and 17 units,
        // without a cluster at 9 rows, one unit; K % 32 == 16 goes to v8's TMA slab.
        (13, 4104, 1056),
        (9, 8200, 1056),
        (16, 8192, 32),
        (14, 4096, 1040),
        // v13's 32-column slabs (where v12 runs clusters, K % 64 == 0): a partial last slab
        // of 8 columns with 17 units (warp 0 takes two), 16 rows over one unit (15 warps
        // idle), 9 rows with a partial last slab of 8 columns.
        (5, 4104, 1088),
        (16, 4136, 64),
        (9, 2056, 2112),
        // v14's one-pass end (each lane sums one output): 12 rows (lanes t >= 2 of the second
        // half of x hold rows past M), one unit per warp, 129 slabs of 32 columns.
        (12, 4128, 1024),
    ];
    let mut cases: Vec<Box<dyn BenchCase>> = Vec::new();
    for (v, _) in gemv::variants() {
        for (i, &(m, n, k)) in shapes.iter().enumerate() {
            cases.push(Box::new(GemvCase::new(
                m,
                n,
                k,
                GemvImpl::Ours(v),
                40 + i as u64,
            )));
        }
    }
    cases.push(Box::new(GemvCase::new(1, 4096, 4096, GemvImpl::Cublas, 3)));
    let failures = run_all(&gpu, cases);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemv_workspace_survives_repeated_launches() {
    // Split-K variants must leave their workspace zeroed: rerun and re-verify several times.
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    for (v, _) in gemv::variants() {
        let mut c = GemvCase::new(4, 8192, 8192, GemvImpl::Ours(v), 9);
        assert!(c.verify(&gpu).unwrap().passed, "v{v} first run");
        for round in 0..3 {
            for _ in 0..5 {
                c.launch(&gpu, 0).unwrap();
            }
            let r = c.verify(&gpu).unwrap();
            assert!(r.passed, "v{v} round {round}: {}", r.detail);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn elementwise_every_variant_with_tails() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut cases: Vec<Box<dyn BenchCase>> = Vec::new();
    for (v, _) in elementwise::variants() {
        for &n in &[1u64, 7, 8, 9, 1023, 4096 + 3, 1 << 20, (1 << 24) + 5] {
            for op in [Op::Relu, Op::Gelu(0), Op::Gelu(1)] {
                cases.push(Box::new(ElementwiseCase::new(op, n, v, n + v as u64)));
            }
        }
    }
    let failures = run_all(&gpu, cases);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn layernorm_every_variant_at_odd_hidden_sizes() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let shapes = [
        (1, 1),
        (3, 7),
        (5, 768),
        (7, 1000),
        (33, 1024),
        (2, 1030),
        (64, 4096),
        (9, 4099),
        (4, 8192),
        (3, 12288),
        (2, 16384),
        (1, 16385),
        // v4's two-row blocks: odd row counts (the last block has one row) and hidden sizes
        // in each of its three buckets.
        (5, 1040),
        (3, 2056),
        (7, 4096),
    ];
    let mut cases: Vec<Box<dyn BenchCase>> = Vec::new();
    for (v, _) in layernorm::variants() {
        for (i, &(rows, hidden)) in shapes.iter().enumerate() {
            cases.push(Box::new(LayerNormCase::new(rows, hidden, v, 70 + i as u64)));
        }
    }
    let failures = run_all(&gpu, cases);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
