//! "Model bytes vs measured bytes": what the hardware counters measured for the records
//! that carry them (`--counters`), beside the work model, with a short reading.

use crate::results::counters_table::{markdown, with_counters};
use crate::results::export::fmt_pct;
use crate::results::schema::{Record, ResultsFile};

/// How far measured bytes may sit from the model's and still "hold" (issue 41: 10%).
const HOLDS: f64 = 0.10;

fn name(r: &Record) -> String {
    format!(
        "{} {} {} {}",
        r.kernel,
        r.impl_label(),
        r.shape.label(),
        r.cache
    )
}

/// The section, or None when no record carries counters.
pub(super) fn counters_section(results: &ResultsFile) -> Option<String> {
    let table = markdown(&results.records)?;
    let mut out = String::from("## Model bytes vs measured bytes\n\n");
    out.push_str(
        "Each case ran once more under Nsight Compute: one launch, its caches flushed first \
         (cold) or left as a warm-up launch filled them (hot). DRAM bytes are what the \
         counters saw read and written; model bytes are the least the kernel must move. \
         FLOPs are counted from the tensor-path and FP32/FP16 FMA, ADD and MUL counters \
         (formula and its assumption: src/counters/metrics.rs).\n\n",
    );
    out.push_str(&table);
    out.push('\n');
    let lines = reading(&with_counters(&results.records));
    if !lines.is_empty() {
        out.push_str("**Reading.**\n\n");
        for l in lines {
            out.push_str(&format!("- {l}\n"));
        }
        out.push('\n');
    }
    Some(out)
}

fn reading(recs: &[&Record]) -> Vec<String> {
    let with_ratio: Vec<(&Record, f64)> = recs
        .iter()
        .filter_map(|r| r.counters.dram_ratio(r.bytes).map(|x| (*r, x)))
        .collect();
    let list = |f: &dyn Fn(f64) -> bool| -> Vec<String> {
        with_ratio
            .iter()
            .filter(|(_, x)| f(*x))
            .map(|(r, x)| {
                let hit = r
                    .counters
                    .l2_hit_rate
                    .map_or(String::new(), |h| format!(", L2 hit {}", fmt_pct(h)));
                format!("{} ({x:.2}x{hit})", name(r))
            })
            .collect()
    };
    let mut out = Vec::new();
    let holds = list(&|x| (x - 1.0).abs() <= HOLDS);
    if !holds.is_empty() {
        out.push(format!(
            "The model's bytes hold within {:.0}%: {}.",
            HOLDS * 100.0,
            holds.join("; ")
        ));
    }
    let below = list(&|x| x < 1.0 - HOLDS);
    if !below.is_empty() {
        out.push(format!(
            "Less DRAM traffic than the model, the rest served from L2: {}. Placed by its \
             measured bytes, such a kernel sits further right on the roofline (hollow rings).",
            below.join("; ")
        ));
    }
    let above = list(&|x| x > 1.0 + HOLDS);
    if !above.is_empty() {
        out.push(format!(
            "More DRAM traffic than the model (re-reads, write-allocate or partial sectors): {}.",
            above.join("; ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::counters_table::tests::with_sample_counters;
    use crate::results::schema::tests::fixture;

    #[test]
    fn section_only_with_counters() {
        assert_eq!(counters_section(&fixture()), None);
        let mut recs = with_sample_counters();
        // a hot GEMV that read almost nothing from DRAM
        let mut hot = recs
            .iter()
            .find(|r| r.counters.is_present())
            .unwrap()
            .clone();
        hot.cache = "hot".into();
        hot.counters.dram_bytes_measured = Some(hot.bytes * 0.02);
        hot.counters.l2_hit_rate = Some(97.0);
        recs.push(hot);
        let f = ResultsFile {
            records: recs,
            ..fixture()
        };
        let md = counters_section(&f).unwrap();
        assert!(md.starts_with("## Model bytes vs measured bytes"), "{md}");
        assert!(md.contains("| DRAM / model |"), "{md}");
        assert!(
            md.contains("The model's bytes hold within 10%: gemv"),
            "{md}"
        );
        assert!(md.contains("cold (1.01x, L2 hit 4.0%)"), "{md}");
        assert!(
            md.contains("served from L2: gemv") && md.contains("hot (0.02x, L2 hit 97%)"),
            "{md}"
        );
        assert!(!md.contains("More DRAM traffic"), "{md}");
    }
}
