//! The LLM projection sweep's section: ours against cuBLAS at each shape (a table of the
//! pairs), and a reading of the ratios.

use crate::results::export::{fmt_num, markdown_rows};
use crate::results::schema::{beside, Record};

use super::helpers::{dominant, tf};

/// (ours, its cuBLAS twin) at every shape, in file order.
fn pairs<'r>(recs: &[&'r Record]) -> Vec<(&'r Record, &'r Record)> {
    recs.iter()
        .copied()
        .filter(|r| r.impl_ == "ours" && r.median_ms > 0.0)
        .filter_map(|o| Some((o, beside(recs, o, "cublas")?)))
        .collect()
}

/// Ours' speed relative to cuBLAS's: cuBLAS time / ours (above 1: ours faster).
fn speed(o: &Record, c: &Record) -> f64 {
    c.median_ms / o.median_ms
}

fn ratio(x: f64) -> String {
    format!("{x:.3}×")
}

/// What a figure is: "clean", "CAPPED" (too few unthrottled samples), "sustained", ...
fn status(r: &Record) -> &str {
    match r.status.as_deref() {
        Some("throttled") => "CAPPED",
        Some(s) => s,
        None => "—",
    }
}

fn clocks_cell(o: &Record, c: &Record) -> String {
    if status(o) == status(c) {
        status(o).to_string()
    } else {
        format!("ours {}, cuBLAS {}", status(o), status(c))
    }
}

fn mode(r: &Record) -> (String, String) {
    (r.cache.clone(), r.timing.clone())
}

/// The table of pairs: shape, both medians, ours / cuBLAS speed, both rates, clocks.
pub(super) fn llm_table(recs: &[&Record]) -> Option<String> {
    let pairs = pairs(recs);
    let (cache, timing) = mode(pairs.first()?.0);
    let one_mode = pairs
        .iter()
        .all(|(o, _)| mode(o) == (cache.clone(), timing.clone()));
    let rows: Vec<Vec<String>> = pairs
        .iter()
        .map(|&(o, c)| {
            let mut shape = o.shape.label();
            if o.dtype != "fp16" {
                shape += &format!(" {}", o.dtype); // `sweep llm --dtype bf16`
            }
            if !one_mode {
                shape += &format!(" ({}, {})", o.cache, o.timing);
            }
            vec![
                shape,
                o.variant.clone(),
                fmt_num(o.median_us()),
                fmt_num(c.median_us()),
                ratio(speed(o, c)),
                fmt_num(o.tflops),
                fmt_num(c.tflops),
                clocks_cell(o, c),
            ]
        })
        .collect();
    let intro = if one_mode {
        format!("Ours and cuBLAS, timed interleaved at each shape ({cache} L2, {timing} timing)")
    } else {
        "Ours and cuBLAS, timed interleaved at each shape".to_string()
    };
    Some(format!(
        "{intro}; speed = cuBLAS time / ours, above 1× ours is faster; clocks: \"clean\" figures \
         come from unthrottled samples only, CAPPED ones had too few.\n\n{}",
        markdown_rows(
            &[
                "shape (M×N×K)",
                "ours",
                "ours µs",
                "cuBLAS µs",
                "ours / cuBLAS",
                "ours TFLOP/s",
                "cuBLAS TFLOP/s",
                "clocks",
            ],
            &[false, false, true, true, true, true, true, false],
            &rows,
        )
    ))
}

pub(super) fn llm_reading(recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let all = pairs(recs);
    let Some((cache, timing)) = dominant(&all.iter().map(|(o, _)| *o).collect::<Vec<_>>(), mode)
    else {
        return lines;
    };
    let sel: Vec<(&Record, &Record)> = all
        .into_iter()
        .filter(|(o, _)| mode(o) == (cache.clone(), timing.clone()))
        .collect();
    let n = sel.len();
    let speeds: Vec<f64> = sel.iter().map(|&(o, c)| speed(o, c)).collect();
    let geomean = (speeds.iter().map(|s| s.ln()).sum::<f64>() / n as f64).exp();
    let at = |i: usize| format!("{} at {}", ratio(speeds[i]), sel[i].0.shape.label());
    let by = |better: fn(f64, f64) -> bool| {
        (0..n).fold(0, |b, i| if better(speeds[i], speeds[b]) { i } else { b })
    };
    let mut variants: Vec<&str> = Vec::new();
    for (o, _) in &sel {
        if !variants.contains(&o.variant.as_str()) {
            variants.push(&o.variant);
        }
    }
    lines.push(format!(
        "Ours ({}) against cuBLAS at {n} shape(s) ({cache} L2, {timing} timing): geometric mean {} \
         cuBLAS's speed, from {} to {}.",
        variants.join(", "),
        ratio(geomean),
        at(by(|a, b| a < b)),
        at(by(|a, b| a > b)),
    ));
    let count = |min: f64| speeds.iter().filter(|&&s| s >= min).count();
    lines.push(format!(
        "At least as fast as cuBLAS at {} of {n}; within 5% of it (≥ 0.95×) at {} of {n}.",
        count(1.0),
        count(0.95)
    ));
    let range = |f: fn(&(&Record, &Record)) -> f64| {
        let v: Vec<f64> = sel.iter().map(f).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{}–{}", fmt_num(lo), tf(hi))
    };
    lines.push(format!(
        "Ours reaches {}, cuBLAS {}.",
        range(|p| p.0.tflops),
        range(|p| p.1.tflops)
    ));
    let capped: Vec<String> = sel
        .iter()
        .filter(|(o, c)| status(o) == "CAPPED" || status(c) == "CAPPED")
        .map(|(o, _)| o.shape.label())
        .collect();
    if !capped.is_empty() {
        lines.push(format!(
            "{} pair(s) hold a CAPPED figure (too few unthrottled samples), so the ratio mixes \
             throttled clocks: {}.",
            capped.len(),
            capped.join(", ")
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::tests::fixture_with_llm as fixture;

    fn llm_records(f: &crate::results::schema::ResultsFile) -> Vec<&Record> {
        f.records_of("llm").collect()
    }

    #[test]
    fn the_table_pairs_ours_with_cublas_at_each_shape() {
        let f = fixture();
        let t = llm_table(&llm_records(&f)).unwrap();
        assert!(t.contains("(cold L2, kernel timing)"), "{t}");
        for row in [
            "| shape (M×N×K) | ours | ours µs | cuBLAS µs | ours / cuBLAS | ours TFLOP/s | cuBLAS TFLOP/s | clocks |",
            "| 1024x4096x4096 | v11 | 55.2 | 57.1 | 1.034× | 622 | 602 | clean |",
            "| 8192x4096x4096 | v11 | 612 | 372 | 0.608× | 449 | 739 | clean |",
            "| 1024x14336x4096 | v11 | 289 | 170 | 0.589× | 416 | 707 | clean |",
            "| 8192x14336x4096 | v11 | 2105 | 1318 | 0.626× | 457 | 730 | ours clean, cuBLAS CAPPED |",
        ] {
            assert!(t.contains(row), "missing {row:?}\n{t}");
        }
        assert_eq!(t.matches("| v11 |").count(), 4);
    }

    #[test]
    fn a_shape_without_its_cublas_twin_has_no_row_and_none_means_no_table() {
        let mut f = fixture();
        f.records.retain(|r| {
            !(r.experiment == "llm" && r.impl_ == "cublas" && r.shape.primary() == 1024)
        });
        let t = llm_table(&llm_records(&f)).unwrap();
        assert_eq!(t.matches("| v11 |").count(), 2, "{t}");
        f.records
            .retain(|r| !(r.experiment == "llm" && r.impl_ == "cublas"));
        assert!(llm_table(&llm_records(&f)).is_none());
        assert!(llm_reading(&llm_records(&f)).is_empty());
    }

    #[test]
    fn several_modes_are_named_in_the_rows() {
        let mut f = fixture();
        for r in f
            .records
            .iter_mut()
            .filter(|r| r.experiment == "llm" && r.shape.primary() == 1024)
        {
            r.timing = "graph".into();
        }
        let t = llm_table(&llm_records(&f)).unwrap();
        assert!(t.contains("| 1024x4096x4096 (cold, graph) | v11 |"), "{t}");
        assert!(t.contains("| 8192x4096x4096 (cold, kernel) | v11 |"), "{t}");
        // the reading keeps to the dominant mode (here a tie: the first seen)
        let lines = llm_reading(&llm_records(&f)).join("\n");
        assert!(
            lines.contains("at 2 shape(s) (cold L2, graph timing)"),
            "{lines}"
        );
    }

    #[test]
    fn the_reading_is_computed_from_the_pairs() {
        let f = fixture();
        let lines = llm_reading(&llm_records(&f));
        // speeds 1.0344, 0.6078, 0.5887, 0.6261: geometric mean 0.694
        assert_eq!(
            lines[0],
            "Ours (v11) against cuBLAS at 4 shape(s) (cold L2, kernel timing): geometric mean \
             0.694× cuBLAS's speed, from 0.589× at 1024x14336x4096 to 1.034× at 1024x4096x4096."
        );
        assert_eq!(
            lines[1],
            "At least as fast as cuBLAS at 1 of 4; within 5% of it (≥ 0.95×) at 1 of 4."
        );
        assert_eq!(
            lines[2],
            "Ours reaches 416–622 TFLOP/s, cuBLAS 602–739 TFLOP/s."
        );
        assert!(
            lines[3].starts_with("1 pair(s) hold a CAPPED figure")
                && lines[3].ends_with(": 8192x14336x4096."),
            "{}",
            lines[3]
        );
        assert_eq!(lines.len(), 4);
    }
}
