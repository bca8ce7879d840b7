//! The cases `report --counters` profiles: a fixed handful that shows where the byte model
//! holds (cold, streaming) and where L2 breaks it (hot), rather than every record. Each
//! must also be a case the report's sweeps time, at a size both `--quick` and the full
//! report run, so its records exist to carry the counters.

use super::probe::ProbeSpec;
use crate::measure::CacheMode::{self, Cold, Hot};
use crate::registry;
use crate::results::schema::Shape;

const MIB: u64 = 1 << 20;

/// The shape of a family's elementwise-sweep point at `bytes` (the sweep's own sizing).
fn point_shape(family: &str, bytes: u64) -> Option<Shape> {
    let point = registry::find(family)?.elementwise_point?;
    Some(point(bytes, 1).id().shape)
}

/// (family, impl, shape, cache) of each case, in the order they are profiled.
fn list() -> Vec<(&'static str, &'static str, Shape, CacheMode)> {
    let gemv = Shape::Gemm {
        m: 1,
        n: 4096,
        k: 4096,
    };
    let square = Shape::Gemm {
        m: 4096,
        n: 4096,
        k: 4096,
    };
    let mut out = vec![
        // Decode: W (32 MiB) read once cold; hot, most of it is in L2 (60 MiB on the H200).
        ("gemv", "ours", gemv.clone(), Cold),
        ("gemv", "ours", gemv.clone(), Hot),
        ("gemv", "cublas", gemv.clone(), Cold),
        ("gemv", "cublas", gemv, Hot),
        // Compute-bound: tiles re-read from L2, so DRAM bytes stay near the model's.
        ("hgemm", "ours", square.clone(), Cold),
        ("hgemm", "cublas", square, Cold),
    ];
    // Streaming kernels: 256 MiB cold (model should hold), 16 MiB hot (fits in L2).
    for family in ["layernorm", "gelu"] {
        for (mib, cache) in [(256, Cold), (16, Hot)] {
            if let Some(s) = point_shape(family, mib * MIB) {
                out.push((family, "ours", s, cache));
            }
        }
    }
    out
}

/// The report's counter cases as probe specs (seeded as the report's sweeps are).
pub fn specs(seed: u64) -> Vec<ProbeSpec> {
    list()
        .into_iter()
        .filter_map(|(f, i, s, c)| ProbeSpec::single(f, i, &s, c, seed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweeps::{plan, Sweep, SweepOpts};

    #[test]
    fn every_listed_case_is_timed_by_the_report_quick_or_not() {
        let specs = specs(1);
        assert_eq!(
            specs.len(),
            list().len(),
            "every entry rebuilds through the registry"
        );
        for quick in [false, true] {
            let opts = SweepOpts {
                quick,
                ..SweepOpts::default()
            };
            let planned: Vec<_> = Sweep::ALL
                .iter()
                .flat_map(|s| plan(*s, &opts))
                .filter(|p| p.relabel.is_none())
                .map(|p| (p.case.id(), p.cfg.cache))
                .collect();
            for s in &specs {
                assert!(
                    planned.iter().any(|(id, c)| *id == s.id && *c == s.cache),
                    "{} is not timed by the report (quick: {quick})",
                    s.label()
                );
            }
        }
    }
}
