//! `roofline check`: every registered family and variant at its fixed awkward shapes and at
//! seeded random shapes, verified against float64 CPU references and cuBLAS, in a dtype (fp16:
//! every family; bf16: the families and variants with a bf16 form). No timing.

use crate::dtype::Dtype;
use crate::gpu::Gpu;
use crate::measure::BenchCase;
use crate::registry::{self, CheckPick, Family};
use anyhow::Result;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub struct CheckRow {
    pub family: &'static str,
    pub dtype: Dtype,
    pub case: String,
    pub passed: bool,
    pub rel_err: f64,
    pub detail: String,
}

/// The cases of one family in `dtype`: its fixed shapes on every variant with a form in it, then
/// `random` seeded shapes, each on one such variant in turn (so every variant sees its share of
/// random shapes). None in a dtype the family does not take.
pub fn cases(family: &Family, random: usize, seed: u64, dtype: Dtype) -> Vec<Box<dyn BenchCase>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ family.name.len() as u64);
    let vs = family.variants_in(dtype);
    let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
    if vs.is_empty() {
        return out;
    }
    for shape in (family.check_shapes)() {
        out.extend((family.check_cases)(&shape, &vs, CheckPick::Fixed, dtype));
    }
    for i in 0..random {
        let shape = (family.random_shape)(&mut rng);
        let pick = CheckPick::Random {
            i,
            seed: seed + i as u64,
        };
        out.extend((family.check_cases)(
            &shape,
            &[vs[i % vs.len()]],
            pick,
            dtype,
        ));
    }
    out
}

/// Per-family totals of a check: (family, dtype, cases, passed, worst finite rel. error, failed
/// cases).
pub struct FamilySummary<'a> {
    pub family: &'static str,
    pub dtype: Dtype,
    pub cases: usize,
    pub passed: usize,
    pub worst_rel_err: f64,
    pub failed: Vec<&'a str>,
}

impl FamilySummary<'_> {
    /// "hgemm", or "hgemm bf16" for another dtype than fp16.
    pub fn label(&self) -> String {
        format!("{}{}", self.family, self.dtype.suffix())
    }
}

/// One summary per family and dtype present in `rows`, in registry order, fp16 first.
pub fn summarize(rows: &[CheckRow]) -> Vec<FamilySummary<'_>> {
    registry::ALL
        .iter()
        .flat_map(|f| Dtype::ALL.map(|d| (f.name, d)))
        .filter_map(|(family, dtype)| {
            let fam: Vec<&CheckRow> = rows
                .iter()
                .filter(|r| r.family == family && r.dtype == dtype)
                .collect();
            (!fam.is_empty()).then(|| FamilySummary {
                family,
                dtype,
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

/// Verifies every case of a family in `dtype`; errors (e.g. a failed launch) count as failures,
/// not aborts.
pub fn run_family(
    gpu: &Gpu,
    family: &'static Family,
    random: usize,
    seed: u64,
    dtype: Dtype,
    pb: &indicatif::ProgressBar,
) -> Result<Vec<CheckRow>> {
    let mut rows = Vec::new();
    for mut c in cases(family, random, seed, dtype) {
        let name = c.id().describe();
        pb.set_message(name.clone());
        let row = match c.verify(gpu) {
            Ok(v) => CheckRow {
                family: family.name,
                dtype,
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
                    family: family.name,
                    dtype,
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
            dtype: Dtype::F16,
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
        for &fam in registry::ALL {
            for dtype in Dtype::ALL.into_iter().filter(|&d| fam.takes(d)) {
                let a: Vec<String> = cases(fam, 50, 7, dtype)
                    .iter()
                    .map(|c| c.id().describe())
                    .collect();
                let b: Vec<String> = cases(fam, 50, 7, dtype)
                    .iter()
                    .map(|c| c.id().describe())
                    .collect();
                let fixed = cases(fam, 0, 7, dtype).len();
                assert_eq!(a, b, "{}: same seed, same shapes", fam.name);
                assert_eq!(a.len(), fixed + 50, "{} {dtype}", fam.name);
            }
        }
    }

    /// bf16: the GEMM families check their bf16 variants (HGEMM's and GEMM+bias+GELU's
    /// BF16_FORMS, GEMM+bias+residual v11) at every fixed shape and at random ones, every case
    /// in bf16 (its records' and messages' dtype); the others have no bf16 case.
    #[test]
    fn bf16_cases_run_the_variants_with_a_bf16_form_in_bf16() {
        use crate::kernels::{gemm, gemm_gelu, gemm_residual};
        let forms: [(&str, Vec<u32>); 3] = [
            ("hgemm", gemm::BF16_FORMS.to_vec()),
            ("gemm_bias_gelu", gemm_gelu::BF16_FORMS.to_vec()),
            ("gemm_residual", vec![gemm_residual::BEST]),
        ];
        for &fam in registry::ALL {
            let cs = cases(fam, 20, 3, Dtype::Bf16);
            let Some((_, with)) = forms.iter().find(|(n, _)| *n == fam.name) else {
                assert!(cs.is_empty(), "{}: no bf16 cases", fam.name);
                continue;
            };
            assert_eq!(&fam.variants_in(Dtype::Bf16), with, "{}", fam.name);
            assert!(
                cs.len() >= with.len() * (fam.check_shapes)().len() + 20,
                "{}",
                fam.name
            );
            let ours: Vec<String> = with.iter().map(|v| format!("v{v}")).collect();
            for c in &cs {
                let id = c.id();
                assert_eq!(id.dtype, "bf16", "{}", id.describe());
                assert!(id.describe().ends_with(" bf16"), "{}", id.describe());
                assert!(
                    id.variant.is_empty() || ours.contains(&id.variant),
                    "{}: only {ours:?} have a bf16 form",
                    id.describe()
                );
                // the unfused pair's bias+GELU kernel is fp16 only
                assert!(!id.impl_.starts_with("unfused"), "{}", id.describe());
            }
        }
    }
}
