//! Properties of the CPU-side arithmetic, through the public library API: work models, shape
//! and size parsing, sample statistics and the stopping rule, roofline placement, cold-L2
//! rotation sizing and graph sizing. Case counts are modest: the whole file runs in seconds.

use proptest::prelude::*;
use roofline_lab::cli::args::{parse_dim, parse_size};
use roofline_lab::measure::cold::{cold_sets, MAX_SETS};
use roofline_lab::measure::engine::graph_launches;
use roofline_lab::measure::stats::{relative_noise, summarize, StopRule};
use roofline_lab::roofline::placement::{place, Bound, Roofs};
use roofline_lab::roofline::work::{self, ComputeUnit, Work};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

/// Dimensions up to 2^16, so that every product of three is exact in f64.
fn dim() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..=64, 1u64..=(1 << 16)]
}

fn dims3() -> impl Strategy<Value = (u64, u64, u64)> {
    (dim(), dim(), dim())
}

/// A work model as a function of three dimensions (unused ones ignored).
type Model = fn(u64, u64, u64) -> Work;

/// Each shape-taking model, by name.
fn models() -> Vec<(&'static str, Model)> {
    vec![
        ("gemm", work::gemm),
        ("gemm_bias_gelu", work::gemm_bias_gelu),
        ("gemv", work::gemv),
        ("relu", |m, _, _| work::relu(m)),
        ("gelu", |m, _, _| work::gelu(m)),
        ("layernorm", |m, n, _| work::layernorm(m, n)),
        ("copy", |m, _, _| work::copy(m)),
    ]
}

// ---------------------------------------------------------------- work models

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn work_is_positive_and_monotone((m, n, k) in dims3(), which in 0usize..3) {
        for (name, f) in models() {
            let w = f(m, n, k);
            prop_assert!(w.bytes > 0.0 && w.bytes.is_finite(), "{name}: bytes {}", w.bytes);
            if name == "copy" {
                prop_assert_eq!(w.flops, 0.0);
            } else {
                prop_assert!(w.flops > 0.0 && w.flops.is_finite(), "{name}: flops {}", w.flops);
            }
            // One more in any dimension never means less work.
            let mut d = [m, n, k];
            d[which] += 1;
            let bigger = f(d[0], d[1], d[2]);
            prop_assert!(bigger.flops >= w.flops, "{name}: flops fell growing dim {which}");
            prop_assert!(bigger.bytes >= w.bytes, "{name}: bytes fell growing dim {which}");
        }
        // The dimensions a model uses make it strictly larger.
        let mut d = [m, n, k];
        d[which] += 1;
        for f in [work::gemm, work::gemm_bias_gelu, work::gemv] {
            prop_assert!(f(d[0], d[1], d[2]).flops > f(m, n, k).flops);
            prop_assert!(f(d[0], d[1], d[2]).bytes > f(m, n, k).bytes);
        }
    }

    #[test]
    fn gemm_intensity_is_exact((m, n, k) in dims3()) {
        let w = work::gemm(m, n, k);
        let (mf, nf, kf) = (m as f64, n as f64, k as f64);
        prop_assert_eq!(w.flops, 2.0 * mf * nf * kf);
        prop_assert_eq!(w.bytes, 2.0 * (mf * kf + kf * nf + mf * nf));
        prop_assert_eq!(w.ai(), (2.0 * mf * nf * kf) / (2.0 * (mf * kf + kf * nf + mf * nf)));
        prop_assert_eq!(w.unit, ComputeUnit::Tensor);
    }

    #[test]
    fn gemv_is_gemm_and_fused_adds_work((m, n, k) in dims3()) {
        prop_assert_eq!(work::gemv(m, n, k), work::gemm(m, n, k));
        let g = work::gemm(m, n, k);
        let f = work::gemm_bias_gelu(m, n, k);
        prop_assert!(f.flops > g.flops);
        prop_assert!(f.bytes > g.bytes);
        prop_assert_eq!(f.flops - g.flops, m as f64 * n as f64 * (1.0 + work::GELU_FLOPS));
        prop_assert_eq!(f.bytes - g.bytes, 2.0 * n as f64);
    }

    #[test]
    fn elementwise_models_scale_linearly(e in 1u64..=(1 << 31)) {
        let (r, g) = (work::relu(e), work::gelu(e));
        prop_assert_eq!(r.bytes, 4.0 * e as f64);
        prop_assert_eq!(g.bytes, r.bytes);
        prop_assert_eq!(g.flops, work::GELU_FLOPS * r.flops);
        prop_assert_eq!(work::copy(e).bytes, 2.0 * e as f64);
        prop_assert_eq!(work::copy(e).ai(), 0.0);
    }
}

// ---------------------------------------------------------------- parsing

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn parse_dim_accepts_exactly_1_to_2_31_minus_1(n in prop_oneof![
        any::<i64>(),
        -4i64..=4,
        (i32::MAX as i64 - 4)..=(i32::MAX as i64 + 4),
        1i64..=i32::MAX as i64,
    ]) {
        let r = parse_dim(&n.to_string());
        if (1..=i32::MAX as i64).contains(&n) {
            prop_assert_eq!(r, Ok(n as u64));
        } else {
            let msg = r.unwrap_err();
            prop_assert!(msg.contains(&n.to_string()), "{msg}");
        }
    }

    #[test]
    fn parse_size_round_trips_mib(n in 1u64..=1_000_000) {
        prop_assert_eq!(parse_size(&format!("{n}MiB")), Ok(n << 20));
        prop_assert_eq!(parse_size(&format!("{n}KiB")), Ok(n << 10));
        prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
        prop_assert_eq!(parse_size(&format!("{n}mb")), Ok(n * 1_000_000));
    }

    #[test]
    fn parse_size_rejects_zero_and_negative(
        n in prop_oneof![Just(0i64), i64::MIN..=0, -1_000_000i64..=0],
        unit in prop::sample::select(vec!["", "B", "KiB", "MiB", "GiB", "KB", "MB", "GB", "k"]),
    ) {
        let s = format!("{n}{unit}");
        let msg = parse_size(&s).unwrap_err();
        prop_assert!(msg.contains(&s), "{s}: {msg}");
    }

    #[test]
    fn parse_size_rejects_garbage(s in "[a-zA-Z ]{0,8}|[^0-9]{1,8}|[0-9]{1,6}[x_/#,;][a-zA-Z0-9]{1,4}") {
        // No digits at all, or digits with junk: never a size.
        prop_assert!(parse_size(&s).is_err(), "{s:?} was accepted");
    }
}

proptest! {
    #![proptest_config(config(1024))]

    /// Any string whatsoever: an answer, never a panic; an accepted size is in range.
    #[test]
    fn parse_never_panics(s in prop_oneof![
        any::<String>(),
        "[-+0-9.eE ]{0,12}[a-zA-Z]{0,4}",
        "[0-9]{1,30}(\\.[0-9]{0,20})?(e[-+]?[0-9]{1,4})?(KiB|MiB|GiB|B|k|m|g)?",
    ]) {
        if let Ok(b) = parse_size(&s) {
            prop_assert!((1..=1u64 << 50).contains(&b), "{s:?} -> {b}");
        }
        if let Ok(d) = parse_dim(&s) {
            prop_assert!((1..=i32::MAX as u64).contains(&d), "{s:?} -> {d}");
        }
    }
}

// ---------------------------------------------------------------- statistics

fn samples() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![1e-4f64..1e4, 0.9f64..1.1, Just(1.0)], 1..60)
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn summary_is_ordered(xs in samples()) {
        let s = summarize(&xs);
        prop_assert!(s.min <= s.p10 && s.p10 <= s.median, "{s:?}");
        prop_assert!(s.median <= s.p90 && s.p90 <= s.max, "{s:?}");
        prop_assert_eq!(s.n, xs.len());
        prop_assert!(s.mad >= 0.0 && s.noise >= 0.0, "{s:?}");
        prop_assert_eq!(s.min, xs.iter().copied().fold(f64::INFINITY, f64::min));
        prop_assert_eq!(s.max, xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        prop_assert!(close(s.noise, s.mad / s.median, 1e-12));
        if xs.len() >= 2 {
            prop_assert_eq!(relative_noise(&xs), s.noise);
        }
    }

    #[test]
    fn summary_ignores_order(
        (xs, shuffled) in samples().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
    ) {
        let (a, b) = (summarize(&xs), summarize(&shuffled));
        prop_assert_eq!(a, b);
        prop_assert_eq!(relative_noise(&xs), relative_noise(&shuffled));
    }

    #[test]
    fn summary_scales(xs in samples(), c in prop_oneof![1e-3f64..1e3, Just(2.0), Just(0.5)]) {
        let a = summarize(&xs);
        let scaled: Vec<f64> = xs.iter().map(|x| x * c).collect();
        let b = summarize(&scaled);
        prop_assert!(close(b.median, c * a.median, 1e-9), "{} vs {}", b.median, c * a.median);
        prop_assert!(close(b.min, c * a.min, 1e-12) && close(b.max, c * a.max, 1e-12));
        prop_assert!((b.noise - a.noise).abs() <= 1e-9 * a.noise.max(1.0), "{} vs {}", b.noise, a.noise);
    }
}

fn stop_rule() -> impl Strategy<Value = StopRule> {
    (
        1usize..40,
        0usize..40,
        0.0f64..50.0,
        0.0f64..200.0,
        1e-4f64..0.99,
        1e-4f64..0.99,
    )
        .prop_map(
            |(min_s, extra, min_t, extra_t, noise, precision)| StopRule {
                min_samples: min_s,
                max_samples: min_s + extra,
                min_time_ms: min_t,
                max_time_ms: min_t + extra_t + 1e-3,
                target_noise: noise,
                median_precision: precision,
            },
        )
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn stop_rule_is_monotone(
        rule in stop_rule(),
        xs in prop::collection::vec(0.5f64..2.0, 0..100),
        t in 0.0f64..400.0,
        dt in 0.0f64..400.0,
    ) {
        prop_assert!(rule.validate().is_ok(), "{rule:?}");
        // The sample cap and the time cap always stop.
        if xs.len() >= rule.max_samples {
            prop_assert!(rule.should_stop(&xs, t));
            prop_assert!(rule.should_stop(&xs, 0.0));
        }
        prop_assert!(rule.should_stop(&xs, rule.max_time_ms + t));
        // Once it stops, more time never un-stops it.
        if rule.should_stop(&xs, t) {
            prop_assert!(rule.should_stop(&xs, t + dt));
        }
        // Below the minimums (and the caps) it never stops.
        if xs.len() < rule.min_samples && xs.len() < rule.max_samples && t < rule.max_time_ms {
            prop_assert!(!rule.should_stop(&xs, t));
        }
        // Every prefix at or past the sample cap stops.
        for n in rule.max_samples..=xs.len() {
            prop_assert!(rule.should_stop(&xs[..n], 0.0), "n = {n}");
        }
    }
}

// ---------------------------------------------------------------- placement

fn roofs() -> impl Strategy<Value = Roofs> {
    (
        100.0f64..10_000.0,
        1.0f64..4.0,
        10.0f64..2_000.0,
        1.0f64..200.0,
        prop_oneof![Just(0.0), 1e-4f64..0.05],
    )
        .prop_map(|(hbm, l2x, tc, fp32, lat)| Roofs {
            hbm_gbs: hbm,
            l2_gbs: hbm * l2x,
            tensor_tflops: tc,
            fp32_tflops: fp32,
            latency_ms: lat,
        })
}

fn some_work() -> impl Strategy<Value = Work> {
    prop_oneof![
        dims3().prop_map(|(m, n, k)| work::gemm(m, n, k)),
        dims3().prop_map(|(m, n, k)| work::gemm_bias_gelu(m, n, k)),
        (1u64..=4096, dim(), dim()).prop_map(|(m, n, k)| work::gemv(m, n, k)),
        (1u64..=1 << 30).prop_map(work::relu),
        (1u64..=1 << 30).prop_map(work::gelu),
        (dim(), dim()).prop_map(|(r, h)| work::layernorm(r, h)),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn placement_is_the_max_of_three_terms(
        w in some_work(),
        r in roofs(),
        ms in prop_oneof![1e-4f64..1e4, 1e-3f64..10.0],
    ) {
        let p = place(&w, ms, &r);
        let peak = match w.unit {
            ComputeUnit::Tensor => r.tensor_tflops,
            ComputeUnit::Fp32 => r.fp32_tflops,
        };
        let t_compute = w.flops / (peak * 1e12) * 1e3;
        let t_memory = w.bytes / (r.hbm_gbs * 1e9) * 1e3;
        let t_latency = r.latency_ms;
        let largest = t_compute.max(t_memory).max(t_latency);
        prop_assert!(close(p.predicted_ms, largest, 1e-12), "{} vs {largest}", p.predicted_ms);
        let term = match p.bound {
            Bound::Compute => t_compute,
            Bound::Memory => t_memory,
            Bound::Latency => t_latency,
        };
        prop_assert!(close(term, largest, 1e-12), "bound {:?}: {term} vs {largest}", p.bound);
        prop_assert!(close(p.pct_attainable, 100.0 * p.predicted_ms / ms, 1e-12));
        prop_assert!(close(p.tflops * 1e12 * (ms / 1e3), w.flops, 1e-9));
        prop_assert!(close(p.gbs * 1e9 * (ms / 1e3), w.bytes, 1e-9));
        prop_assert!(close(p.ai, w.ai(), 1e-15));
        prop_assert!(p.attainable_hbm_tflops <= peak && p.attainable_l2_tflops <= peak);
        prop_assert!(p.attainable_hbm_tflops <= p.attainable_l2_tflops);
        // Measuring exactly the predicted time is 100% of attainable.
        let on_roof = place(&w, p.predicted_ms.max(1e-12), &r);
        if p.predicted_ms > 0.0 {
            prop_assert!(close(on_roof.pct_attainable, 100.0, 1e-9));
        }
    }
}

// ---------------------------------------------------------------- cold sets, graphs

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn cold_sets_bounded_and_non_increasing(
        a in 0u64..=1 << 40,
        b in 0u64..=1 << 40,
        l2 in 0u64..=1 << 30,
        factor in prop_oneof![Just(3.0), 0.5f64..8.0],
    ) {
        let (small, big) = (a.min(b), a.max(b));
        let (ns, nb) = (cold_sets(small, l2, factor), cold_sets(big, l2, factor));
        for n in [ns, nb] {
            prop_assert!((2..=MAX_SETS).contains(&n), "{n}");
        }
        prop_assert!(ns >= nb, "set {small} -> {ns}, set {big} -> {nb}");
        // Below the cap, the rotation really separates reuses by factor x L2.
        if nb < MAX_SETS {
            let covered = (nb - 1) as f64 * big.max(1) as f64;
            prop_assert!(covered >= factor * l2 as f64 * (1.0 - 1e-12));
        }
    }

    #[test]
    fn graph_launches_whole_rotations(
        per_launch in prop_oneof![1e-7f64..1e-3, 1e-3f64..100.0, 100.0f64..1e4],
        target in prop_oneof![0.0f64..1.0, 1.0f64..500.0],
        sets in prop_oneof![Just(1usize), 2usize..=MAX_SETS, 1usize..=4000],
    ) {
        let k = graph_launches(per_launch, target, sets);
        prop_assert!(k >= 4, "{k}");
        if sets > 1 && sets <= k {
            prop_assert_eq!(k % sets, 0, "k = {}, sets = {}", k, sets);
        }
        if sets <= 2000 {
            prop_assert!(k >= sets, "k = {k} < sets = {sets}");
        }
        // Within [4, 2000] unless rounding up to whole rotations forces more.
        prop_assert!(k <= 2000 || (sets > 1 && k < 2000 + sets), "k = {k}, sets = {sets}");
        if sets == 1 {
            prop_assert!(k <= 2000);
        }
    }
}
