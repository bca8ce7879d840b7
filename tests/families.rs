//! CPU tests of families added through the registry alone: that they reach the places the
//! registry feeds (the sweeps and the check), without a GPU.

use roofline_lab::registry;
use roofline_lab::sweeps::{plan, Sweep, SweepOpts};

#[test]
fn add_rmsnorm_joins_the_elementwise_sweep_at_its_target_shapes() {
    let p = plan(Sweep::Elementwise, &SweepOpts::default());
    let ids: Vec<String> = p.iter().map(|x| x.case.id().describe()).collect();
    for target in ["32768x4096", "4096x4096"] {
        assert!(
            ids.iter()
                .any(|d| d.starts_with("add_rmsnorm ours") && d.ends_with(target)),
            "no add_rmsnorm {target} in {ids:?}"
        );
    }
}

#[test]
fn add_rmsnorm_is_checked_at_awkward_hidden_sizes() {
    let f = registry::find("add_rmsnorm").expect("registered");
    let cases = roofline_lab::check::cases(f, 0, 1);
    let labels: Vec<String> = cases.iter().map(|c| c.id().shape.label()).collect();
    // Sizes off the 16-byte vector (7, 1030, 4099, 16385) and the usual hidden sizes.
    for h in ["x7", "x768", "x1030", "x4099", "x16384", "x16385"] {
        assert!(
            labels.iter().any(|l| l.ends_with(h)),
            "no hidden {h}: {labels:?}"
        );
    }
}

/// GEMM+bias+residual, the GEMM family's second epilogue: found by its `bench` alias, its work
/// model counts the bias and the residual, it is checked against float64 and cuBLASLt at the
/// GEMM family's awkward shapes (M = 1, 16 and off every tile) on every variant, and its bench
/// puts our plain GEMM (the variant's twin) beside it on request.
#[test]
fn gemm_residual_is_a_family_with_the_gemm_familys_checks() {
    use roofline_lab::registry::{BenchRequest, CheckPick};
    use roofline_lab::results::schema::Shape;
    let f = registry::find("gemm-residual").expect("registered under its alias");
    assert_eq!(f.name, "gemm_residual");
    let s = Shape::Gemm {
        m: 16,
        n: 4096,
        k: 4096,
    };
    let w = (f.work)(&s);
    assert_eq!(w.flops, 2.0 * 16.0 * 4096.0 * 4096.0 + 2.0 * 16.0 * 4096.0);
    let (a, b, bias, r, c) = (
        16.0 * 4096.0,
        4096.0 * 4096.0,
        4096.0,
        16.0 * 4096.0,
        16.0 * 4096.0,
    );
    assert_eq!(w.bytes, 2.0 * (a + b + bias + r + c));
    assert!(f.references.iter().any(|r| r.contains("cuBLASLt")));
    assert!(f.references.iter().any(|r| r.contains("float64")));
    let ids = f.variant_ids();
    assert!(ids.len() >= 4 && ids.contains(&(f.best)()), "{ids:?}");
    let shapes = (f.check_shapes)();
    for want in ["1x1x1", "33x17x5", "129x7x33", "16x4096x4096"] {
        assert!(shapes.iter().any(|s| s.label() == want), "no {want}");
    }
    // Every variant and the library at a fixed shape, under the family's own kernel name.
    let cases = (f.check_cases)(&shapes[1], &ids, CheckPick::Fixed);
    assert_eq!(cases.len(), ids.len() + 1);
    assert!(cases.iter().all(|c| c.id().kernel == "gemm_residual"));
    assert!(cases.iter().any(|c| c.id().impl_ == "cublaslt"));
    let req = BenchRequest {
        shape: s,
        impls: vec!["ours".into(), "plain".into(), "cublaslt".into()],
        variants: vec![(f.best)()],
        gelu: 0,
        seed: 1,
    };
    let kernels: Vec<String> = (f.bench_cases)(&req)
        .unwrap()
        .iter()
        .map(|c| c.id().describe())
        .collect();
    assert_eq!(kernels.len(), 3, "{kernels:?}");
    // "plain": the HGEMM variant whose kernels the best residual variant runs (its table).
    let plain = roofline_lab::kernels::gemm_residual::plain_variant((f.best)());
    assert!(
        kernels[1].starts_with(&format!("hgemm ours v{plain} ")),
        "{kernels:?}"
    );
    assert_eq!(f.plugin.symbol, "rl_gemm_residual");
}
