//! `roofline check`: every kernel and variant at fixed awkward shapes and at seeded random
//! shapes, verified against float64 CPU references and cuBLAS. No timing.

use crate::gpu::Gpu;
use crate::kernels::elementwise::{ElementwiseCase, Op};
use crate::kernels::gemm::HgemmCase;
use crate::kernels::gemm_gelu::{GeluImpl, GemmGeluCase};
use crate::kernels::gemv::{GemvCase, GemvImpl};
use crate::kernels::layernorm::LayerNormCase;
use crate::kernels::{elementwise, gemm, gemm_gelu, gemv, layernorm};
use crate::measure::BenchCase;
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Kernel families `check` knows, by the name --kernel takes.
pub const FAMILIES: [&str; 5] = [
    "hgemm",
    "gemm_bias_gelu",
    "gemv",
    "elementwise",
    "layernorm",
];

/// Fixed GEMM shapes: 1x1x1, primes, off-tile, N/K not multiples of 8, large.
pub const GEMM_SHAPES: &[(u64, u64, u64)] = &[
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

pub struct CheckRow {
    pub family: &'static str,
    pub case: String,
    pub passed: bool,
    pub rel_err: f64,
    pub detail: String,
}

fn variant_list(list: Vec<(u32, String)>) -> Vec<u32> {
    list.into_iter().map(|(v, _)| v).collect()
}

/// The cases of one family: fixed shapes on every variant, then `random` seeded shapes,
/// each on one variant in turn (so every variant sees its share of random shapes).
pub fn cases(family: &str, random: usize, seed: u64) -> Vec<Box<dyn BenchCase>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ family.len() as u64);
    let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
    // Dimensions biased toward small and odd: half below 64, the rest up to `hi`.
    let dim = |rng: &mut ChaCha8Rng, hi: u64| -> u64 {
        if rng.gen_bool(0.5) {
            rng.gen_range(1..=64)
        } else {
            rng.gen_range(1..=hi)
        }
    };
    match family {
        "hgemm" => {
            let vs = variant_list(gemm::variants());
            for &(m, n, k) in GEMM_SHAPES {
                for &v in &vs {
                    out.push(Box::new(HgemmCase::new(m, n, k, v, m + n)));
                }
            }
            for i in 0..random {
                let (m, n, k) = (dim(&mut rng, 320), dim(&mut rng, 320), dim(&mut rng, 320));
                out.push(Box::new(HgemmCase::new(
                    m,
                    n,
                    k,
                    vs[i % vs.len()],
                    seed + i as u64,
                )));
            }
        }
        "gemm_bias_gelu" => {
            let vs = variant_list(gemm_gelu::variants());
            let best = gemm::best();
            for &(m, n, k) in &GEMM_SHAPES[..8] {
                for kind in [0, 1] {
                    for &v in &vs {
                        out.push(Box::new(GemmGeluCase::new(
                            m,
                            n,
                            k,
                            GeluImpl::Fused(v),
                            kind,
                            m + k,
                        )));
                    }
                    out.push(Box::new(GemmGeluCase::new(
                        m,
                        n,
                        k,
                        GeluImpl::Unfused(best),
                        kind,
                        m,
                    )));
                    out.push(Box::new(GemmGeluCase::new(
                        m,
                        n,
                        k,
                        GeluImpl::UnfusedCublas,
                        kind,
                        k,
                    )));
                }
                out.push(Box::new(GemmGeluCase::new(
                    m,
                    n,
                    k,
                    GeluImpl::Cublaslt,
                    0,
                    n,
                )));
            }
            for i in 0..random {
                let (m, n, k) = (dim(&mut rng, 320), dim(&mut rng, 320), dim(&mut rng, 320));
                let kind = (i % 2) as i32;
                out.push(Box::new(GemmGeluCase::new(
                    m,
                    n,
                    k,
                    GeluImpl::Fused(vs[i % vs.len()]),
                    kind,
                    seed + i as u64,
                )));
            }
        }
        "gemv" => {
            let vs = variant_list(gemv::variants());
            for &(m, n, k) in &[
                (1, 4096, 4096),
                (16, 8192, 8192),
                (1, 1, 1),
                (5, 7, 9),
                (3, 4100, 4097),
                (17, 520, 777),
            ] {
                for &v in &vs {
                    out.push(Box::new(GemvCase::new(m, n, k, GemvImpl::Ours(v), n + k)));
                }
            }
            for i in 0..random {
                let (m, n, k) = (
                    rng.gen_range(1..=20),
                    dim(&mut rng, 5000),
                    dim(&mut rng, 5000),
                );
                out.push(Box::new(GemvCase::new(
                    m,
                    n,
                    k,
                    GemvImpl::Ours(vs[i % vs.len()]),
                    seed + i as u64,
                )));
            }
        }
        "elementwise" => {
            let vs = variant_list(elementwise::variants());
            for &n in &[1u64, 7, 9, 4099, (1 << 22) + 3] {
                for &v in &vs {
                    for op in [Op::Relu, Op::Gelu(0), Op::Gelu(1)] {
                        out.push(Box::new(ElementwiseCase::new(op, n, v, n)));
                    }
                }
            }
            for i in 0..random {
                let n = if rng.gen_bool(0.5) {
                    rng.gen_range(1..=4096)
                } else {
                    rng.gen_range(1..=1 << 22)
                };
                let op = [Op::Relu, Op::Gelu(0), Op::Gelu(1)][i % 3];
                out.push(Box::new(ElementwiseCase::new(
                    op,
                    n,
                    vs[i % vs.len()],
                    seed + i as u64,
                )));
            }
        }
        "layernorm" => {
            let vs = variant_list(layernorm::variants());
            for &(r, h) in &[
                (1, 1),
                (3, 7),
                (5, 768),
                (2, 1030),
                (64, 4096),
                (9, 4099),
                (2, 16384),
                (1, 16385),
            ] {
                for &v in &vs {
                    out.push(Box::new(LayerNormCase::new(r, h, v, r + h)));
                }
            }
            for i in 0..random {
                let (r, h) = (rng.gen_range(1..=64), dim(&mut rng, 16384));
                out.push(Box::new(LayerNormCase::new(
                    r,
                    h,
                    vs[i % vs.len()],
                    seed + i as u64,
                )));
            }
        }
        _ => {}
    }
    out
}

/// Per-family totals of a check: (family, cases, passed, worst finite rel. error, failed cases).
pub struct FamilySummary<'a> {
    pub family: &'static str,
    pub cases: usize,
    pub passed: usize,
    pub worst_rel_err: f64,
    pub failed: Vec<&'a str>,
}

/// One summary per family present in `rows`, in FAMILIES order.
pub fn summarize(rows: &[CheckRow]) -> Vec<FamilySummary<'_>> {
    FAMILIES
        .iter()
        .filter_map(|&family| {
            let fam: Vec<&CheckRow> = rows.iter().filter(|r| r.family == family).collect();
            (!fam.is_empty()).then(|| FamilySummary {
                family,
                cases: fam.len(),
                passed: fam.iter().filter(|r| r.passed).count(),
                worst_rel_err: fam
                    .iter()
                    .map(|r| r.rel_err)
                    .filter(|e| e.is_finite())
                    .fold(0.0, f64::max),
                failed: fam
                    .iter()
                    .filter(|r| !r.passed)
                    .map(|r| r.case.as_str())
                    .collect(),
            })
        })
        .collect()
}

/// Verifies every case; errors (e.g. a failed launch) count as failures, not aborts.
pub fn run_family(
    gpu: &Gpu,
    family: &'static str,
    random: usize,
    seed: u64,
    pb: &indicatif::ProgressBar,
) -> Result<Vec<CheckRow>> {
    let mut rows = Vec::new();
    for mut c in cases(family, random, seed) {
        let name = c.id().describe();
        pb.set_message(name.clone());
        let row = match c.verify(gpu) {
            Ok(v) => CheckRow {
                family,
                case: name,
                passed: v.passed,
                rel_err: v.rel_err,
                detail: v.detail,
            },
            Err(e) => {
                // A fault poisons the context: report it and stop rather than cascade.
                if e.chain().any(|x| {
                    matches!(
                        x.downcast_ref::<crate::error::LabError>(),
                        Some(crate::error::LabError::KernelFault { .. })
                    )
                }) {
                    return Err(e.context(format!("while checking {name}")));
                }
                CheckRow {
                    family,
                    case: name,
                    passed: false,
                    rel_err: f64::NAN,
                    detail: format!("error: {e:#}"),
                }
            }
        };
        rows.push(row);
        pb.inc(1);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_per_family_and_ignores_non_finite_errors() {
        let row = |family, passed, rel_err| CheckRow {
            family,
            case: format!("{family} {passed}"),
            passed,
            rel_err,
            detail: String::new(),
        };
        let rows = vec![
            row("gemv", true, 1e-4),
            row("gemv", false, f64::NAN),
            row("hgemm", true, 3e-4),
        ];
        let s = summarize(&rows);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].family, s[0].cases, s[0].passed), ("hgemm", 1, 1));
        assert_eq!((s[1].family, s[1].cases, s[1].passed), ("gemv", 2, 1));
        assert_eq!(s[1].worst_rel_err, 1e-4);
        assert_eq!(s[1].failed, vec!["gemv false"]);
    }

    #[test]
    fn random_shapes_are_seeded_and_counted() {
        for fam in FAMILIES {
            let a: Vec<String> = cases(fam, 50, 7)
                .iter()
                .map(|c| c.id().describe())
                .collect();
            let b: Vec<String> = cases(fam, 50, 7)
                .iter()
                .map(|c| c.id().describe())
                .collect();
            let fixed = cases(fam, 0, 7).len();
            assert_eq!(a, b, "{fam}: same seed, same shapes");
            assert_eq!(a.len(), fixed + 50, "{fam}");
        }
    }
}
