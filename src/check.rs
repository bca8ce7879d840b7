//! `roofline check`: every registered family and variant at its fixed awkward shapes and at
//! seeded random shapes, verified against float64 CPU references and cuBLAS. No timing.

use crate::gpu::Gpu;
use crate::measure::BenchCase;
use crate::registry::{self, CheckPick, Family};
use anyhow::Result;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub struct CheckRow {
    pub family: &'static str,
    pub case: String,
    pub passed: bool,
    pub rel_err: f64,
    pub detail: String,
}

/// The cases of one family: its fixed shapes on every variant, then `random` seeded shapes,
/// each on one variant in turn (so every variant sees its share of random shapes).
pub fn cases(family: &Family, random: usize, seed: u64) -> Vec<Box<dyn BenchCase>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ family.name.len() as u64);
    let vs = family.variant_ids();
    let mut out: Vec<Box<dyn BenchCase>> = Vec::new();
    for shape in (family.check_shapes)() {
        out.extend((family.check_cases)(&shape, &vs, CheckPick::Fixed));
    }
    for i in 0..random {
        let shape = (family.random_shape)(&mut rng);
        let pick = CheckPick::Random {
            i,
            seed: seed + i as u64,
        };
        out.extend((family.check_cases)(&shape, &[vs[i % vs.len()]], pick));
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

/// One summary per family present in `rows`, in registry order.
pub fn summarize(rows: &[CheckRow]) -> Vec<FamilySummary<'_>> {
    registry::ALL
        .iter()
        .map(|f| f.name)
        .filter_map(|family| {
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
    family: &'static Family,
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
                family: family.name,
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
        for &fam in registry::ALL {
            let a: Vec<String> = cases(fam, 50, 7)
                .iter()
                .map(|c| c.id().describe())
                .collect();
            let b: Vec<String> = cases(fam, 50, 7)
                .iter()
                .map(|c| c.id().describe())
                .collect();
            let fixed = cases(fam, 0, 7).len();
            assert_eq!(a, b, "{}: same seed, same shapes", fam.name);
            assert_eq!(a.len(), fixed + 50, "{}", fam.name);
        }
    }
}
