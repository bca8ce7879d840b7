//! The markdown report (report.md): run header, ceilings, the roofline,
//! one section per experiment (table, chart, a short reading), correctness
//! and measurement quality.
//!
//! Every figure in the generated reading is taken or computed from the
//! results file (records and ceilings); nothing is assumed about the device.
//!
//! This module lays the report out; the sections' contents come from its
//! submodules: the ceilings table, the readings (roofline and generic, GEMM,
//! memory-bound), correctness and quality, and the helpers they share.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::plot::{chart_file_for, ROOFLINE_FILE};
use crate::results::export::{markdown_rows, markdown_table};
use crate::results::schema::{Record, ResultsFile};

mod ceilings;
mod counters;
mod gemm_readings;
mod helpers;
mod llm;
mod memory_readings;
mod quality;
mod readings;

use ceilings::ceilings_table;
use gemm_readings::{fusion_reading, square_reading};
use llm::{llm_reading, llm_table};
use memory_readings::{decode_reading, elementwise_reading};
use quality::{correctness, quality};
use readings::{generic_reading, roofline_reading};

/// Experiments in the order the report shows them; others follow in file order.
const ORDER: [&str; 7] = [
    "square",
    "llm",
    "decode",
    "fusion",
    "elementwise",
    "bench",
    "check",
];

fn title_of(experiment: &str) -> String {
    match experiment {
        "square" => "Square GEMM".into(),
        "llm" => "LLM projection GEMMs".into(),
        "decode" => "Decode (GEMV / skinny GEMM)".into(),
        "fusion" => "Fused GEMM + bias + GELU".into(),
        "elementwise" => "Elementwise and normalization kernels".into(),
        "bench" => "Single benchmarks".into(),
        "check" => "Correctness checks".into(),
        other => other.to_string(),
    }
}

/// Renders report.md. `charts` are paths as they should appear in the
/// markdown (relative to the report); each is embedded in the section it
/// belongs to by file name (`roofline.svg`, `square.svg`, `llm.svg`,
/// `decode.svg`, `elementwise.svg`, `fusion.svg`), others under "Other charts".
pub fn render_report(results: &ResultsFile, charts: &[PathBuf]) -> String {
    let mut out = String::new();
    let run = &results.run;
    let device = if run.device.is_empty() {
        "unknown device"
    } else {
        &run.device
    };
    let mut used_charts: Vec<&PathBuf> = Vec::new();
    let mut chart_named = |name: &str| -> Option<String> {
        let p = charts
            .iter()
            .find(|p| p.file_name().is_some_and(|f| f == name))?;
        used_charts.push(p);
        Some(md_path(p))
    };

    let _ = writeln!(out, "# roofline-lab report: {device}\n");
    let exps = ordered_experiments(results);
    let header = vec![
        vec!["Device".to_string(), device.to_string()],
        vec!["Driver".into(), or_dash(&run.driver)],
        vec!["CUDA runtime".into(), or_dash(&run.cuda_runtime)],
        vec!["Commit".into(), code_or_dash(&run.git_commit)],
        vec!["Date".into(), or_dash(&run.date)],
        vec!["Tool version".into(), or_dash(&run.tool_version)],
        vec![
            "Records".into(),
            format!(
                "{} in {} experiment(s): {}",
                results.records.len(),
                exps.len(),
                exps.join(", ")
            ),
        ],
    ];
    let mut header = header;
    if let Some(w) = run.wall_s {
        let phases: Vec<String> = run
            .phases_s
            .iter()
            .map(|(n, s)| format!("{n} {s:.0}"))
            .collect();
        header.push(vec![
            "Wall time".into(),
            format!("{w:.0} s ({})", phases.join(", ")),
        ]);
    }
    let throttled = results
        .records
        .iter()
        .filter(|r| r.status.as_deref() == Some("throttled"))
        .count();
    if results.records.iter().any(|r| r.status.is_some()) {
        header.push(vec![
            "Clocks".into(),
            format!(
                "figures from unthrottled samples only (SM clock within 3% of its maximum, no \
                 power or thermal slowdown; arithmetic-heavy work sampled in bursts with rests); \
                 {throttled} record(s) marked CAPPED had too few"
            ),
        ]);
    }
    out.push_str(&markdown_rows(&["Run", ""], &[false, false], &header));
    out.push('\n');

    // ---- ceilings
    out.push_str("## Ceilings\n\n");
    if run.ceilings.is_empty() {
        out.push_str("No ceilings were recorded.\n\n");
    } else {
        out.push_str(&ceilings_table(results));
        out.push('\n');
    }

    // ---- roofline
    out.push_str("## Roofline\n\n");
    if let Some(p) = chart_named(ROOFLINE_FILE) {
        let _ = writeln!(out, "![Roofline: {device}]({p})\n");
    }
    push_reading(&mut out, roofline_reading(results));

    // ---- experiments
    for exp in &exps {
        let recs: Vec<&Record> = results.records_of(exp).collect();
        let _ = writeln!(out, "## {} (`{exp}`)\n", title_of(exp));
        out.push_str(&markdown_table(&recs, false));
        out.push('\n');
        if *exp == "llm" {
            if let Some(t) = llm_table(&recs) {
                out.push_str(&t);
                out.push('\n');
            }
        }
        if let Some(file) = chart_file_for(exp) {
            if let Some(p) = chart_named(file) {
                let _ = writeln!(out, "![{} chart]({p})\n", title_of(exp));
            }
        }
        let reading = match *exp {
            "square" => square_reading(results, &recs),
            "llm" => llm_reading(&recs),
            "decode" => decode_reading(results, &recs),
            "fusion" => fusion_reading(&recs),
            "elementwise" => elementwise_reading(results, &recs),
            _ => generic_reading(&recs),
        };
        push_reading(&mut out, reading);
    }

    if let Some(section) = counters::counters_section(results) {
        out.push_str(&section);
    }

    let others: Vec<&PathBuf> = charts.iter().filter(|c| !used_charts.contains(c)).collect();
    if !others.is_empty() {
        out.push_str("## Other charts\n\n");
        for p in others {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(out, "![{name}]({})\n", md_path(p));
        }
    }

    out.push_str("## Correctness\n\n");
    push_bullets(&mut out, correctness(results));
    out.push_str("## Measurement quality\n\n");
    push_bullets(&mut out, quality(results));
    out
}

fn md_path(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/").replace(' ', "%20")
}

fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        s.to_string()
    }
}

fn code_or_dash(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        format!("`{s}`")
    }
}

fn push_reading(out: &mut String, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    out.push_str("**Reading.**\n\n");
    push_bullets(out, lines);
}

fn push_bullets(out: &mut String, lines: Vec<String>) {
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
    out.push('\n');
}

fn ordered_experiments(results: &ResultsFile) -> Vec<&str> {
    let present = results.experiments();
    let mut out: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|e| present.contains(e))
        .collect();
    out.extend(present.into_iter().filter(|e| !ORDER.contains(e)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::tests::{fixture, fixture_with_llm};

    fn charts() -> Vec<PathBuf> {
        [
            "roofline.svg",
            "square.svg",
            "llm.svg",
            "decode.svg",
            "elementwise.svg",
            "fusion.svg",
        ]
        .iter()
        .map(|n| PathBuf::from("charts").join(n))
        .collect()
    }

    #[test]
    fn report_has_every_section() {
        let md = render_report(&fixture_with_llm(), &charts());
        for want in [
            "# roofline-lab report: NVIDIA H200",
            "| Driver | 580.159.04 |",
            "| CUDA runtime | 13.0 |",
            "| Commit | `3f9c2e1a7b4d` |",
            "| Date | 2026-11-29T08:41:17Z |",
            "| Tool version | 0.1.0 |",
            "## Ceilings",
            "## Roofline",
            "![Roofline: NVIDIA H200](charts/roofline.svg)",
            "## Square GEMM (`square`)",
            "![Square GEMM chart](charts/square.svg)",
            "## LLM projection GEMMs (`llm`)",
            "![LLM projection GEMMs chart](charts/llm.svg)",
            "| 8192x14336x4096 | v11 | 2105 | 1318 | 0.626× |",
            "within 5% of it (≥ 0.95×) at 1 of 4",
            "## Decode (GEMV / skinny GEMM) (`decode`)",
            "![Decode (GEMV / skinny GEMM) chart](charts/decode.svg)",
            "## Fused GEMM + bias + GELU (`fusion`)",
            "](charts/fusion.svg)",
            "](charts/elementwise.svg)",
            "## Single benchmarks (`bench`)",
            "## Correctness checks (`check`)",
            "## Correctness",
            "## Measurement quality",
        ] {
            assert!(md.contains(want), "missing {want:?}\n{md}");
        }
        assert!(!md.contains("## Other charts"));
        // sections in the fixed order
        let pos = |s: &str| md.find(s).unwrap();
        assert!(pos("(`square`)") < pos("(`llm`)"));
        assert!(pos("(`llm`)") < pos("(`decode`)"));
        // the llm section: records, the pairs, the chart, the reading
        assert!(pos("(`llm`)") < pos("| shape (M×N×K) |"));
        assert!(pos("| shape (M×N×K) |") < pos("charts/llm.svg"));
        assert!(pos("charts/llm.svg") < pos("geometric mean"));
        assert!(pos("geometric mean") < pos("(`decode`)"));
        assert!(pos("(`decode`)") < pos("(`fusion`)"));
        assert!(pos("(`fusion`)") < pos("(`elementwise`)"));
    }

    #[test]
    fn ceilings_table_pairs_measured_with_datasheet() {
        let md = render_report(&fixture(), &[]);
        // 4250 / 4800 = 88.5%
        assert!(
            md.contains(
                "| HBM copy 4.25 TB/s | `hbm_copy` | memory | 4250 GB/s | 4800 GB/s | 89% |"
            ),
            "{md}"
        );
        // 712 / 989.4 = 72%
        assert!(md.contains("| 712 TFLOP/s | 989.4 TFLOP/s | 72% |"));
        assert!(md.contains("| `tensor_cublas_bf16` | compute | 706.5 TFLOP/s | — | — |"));
        // FP32 60.2 / 66.9 = 90%
        assert!(md.contains("| 60.2 TFLOP/s | 66.9 TFLOP/s | 90% |"));
        // no datasheet for L2 and launch floors
        assert!(md.contains("| `l2_read` | memory | 9850 GB/s | — | — |"));
        assert!(md.contains("| `launch_floor_graph` | latency | 1.1 us | — | — |"));
        // datasheet rows are not repeated when paired
        assert!(!md.contains("| `datasheet_hbm` |"));
    }

    /// bf16 pairs beside the fp16 square sweep: the reading stays on fp16 (the same sentences
    /// as without them), adds one line for bf16, and the table names the dtype in the shape.
    #[test]
    fn square_reading_and_table_keep_bf16_apart() {
        let mut f = fixture();
        let bf: Vec<Record> = f
            .records
            .iter()
            .filter(|r| r.experiment == "square" && r.shape.primary() == 4096)
            .filter(|r| r.impl_ == "cublas" || r.variant == "v4")
            .map(|r| {
                let mut b = r.clone();
                b.dtype = "bf16".into();
                // ours 390, cuBLAS 650: 60%; ours above fp16's best, which must not leak in
                b.tflops = if r.impl_ == "cublas" { 650.0 } else { 390.0 };
                b
            })
            .collect();
        f.records.extend(bf);
        let md = render_report(&f, &charts());
        assert!(md.contains(
            "At 4096³ (hot cache, launch timing) our best variant, v4, reaches 382 TFLOP/s: 58% of cuBLAS (654 TFLOP/s)"
        ), "{md}");
        assert!(
            md.contains("In bf16: v4 390 TFLOP/s at 4096³, 60% of cuBLAS's 650 TFLOP/s."),
            "{md}"
        );
        assert!(md.contains("| 4096x4096x4096 bf16 |"), "{md}");
        assert!(md.contains("| 4096x4096x4096 |"), "{md}");
    }

    #[test]
    fn readings_are_computed_from_the_numbers() {
        let md = render_report(&fixture(), &charts());
        // square: v4 381.987 vs cuBLAS 653.848 = 58.4%; vs WMMA 598 = 63.9%
        assert!(md.contains(
            "At 4096³ (hot cache, launch timing) our best variant, v4, reaches 382 TFLOP/s: 58% of cuBLAS (654 TFLOP/s) and 64% of the WMMA ceiling (598 TFLOP/s); it is compute-bound at 54% of attainable."
        ), "{md}");
        assert!(md.contains("Our variants at 4096³: v1 44.5 TFLOP/s (6.8% of cuBLAS), v4 382 TFLOP/s (58% of cuBLAS)."));
        // cuBLAS 688.055 / 712 = 96.6%
        assert!(md.contains("cuBLAS at 8192³ reaches 688 TFLOP/s, 97% of the measured tensor_cublas_fp16 ceiling (712 TFLOP/s)."));
        // decode: 3894.53 / 4250 = 91.6%; hot 7127.56 / 4250 = 1.68x; / 9850 = 72%
        assert!(md.contains("Decode M=1 at N=4096 K=4096 (graph timing), ours v2: cold 3895 GB/s = 92% of HBM copy (4250 GB/s); hot 7128 GB/s, 1.68× HBM copy"), "{md}");
        assert!(md.contains("(72% of the L2 read ceiling, 9850 GB/s)"));
        assert!(md.contains(
            "Our kernel is memory-bound up to M=16 and compute-bound from M=256 (cold)."
        ));
        // fusion: 1 - 0.0381/0.0409 = 6.8%; 1 - 0.0951/0.1013 = 6.1%; 1 - 1.447/1.516 = 4.6%
        assert!(
            md.contains("6.8% at M=16, 6.1% at M=256, 4.6% at M=4096"),
            "{md}"
        );
        assert!(md.contains("Fusion is faster at every M measured, saving at least 4.6%."));
        // ours / cuBLASLt: 0.0381/0.0362 = 1.05
        assert!(md.contains("1.05× at M=16"));
        // elementwise: relu 1 GiB moved, 4096.69 / 4250 = 96%
        assert!(md.contains("relu (ours v1, graph timing): at 1.0 GiB moved (shape 268435456 elems), cold 4097 GB/s = 96% of HBM copy"), "{md}");
        assert!(md.contains("hot, above the HBM roof at 8.0 MiB moved (up to 1.30× HBM copy"));
        assert!(md.contains("2.51 µs per call = 2.3× the launch_floor_graph (1.1 us)"));
    }

    #[test]
    fn correctness_and_quality_summaries() {
        let f = fixture();
        let md = render_report(&f, &[]);
        let verified = f.records.iter().filter(|r| r.verified).count();
        assert!(md.contains(&format!(
            "{verified} of {} records verified",
            f.records.len()
        )));
        assert!(md.contains("2 skipped; 0 failed"));
        assert!(md.contains("Worst relative error: 2.2e-3"));
        assert!(md.contains("sw_power_cap (3 records)"));
        assert!(md.contains("noisier than 5%"));
        assert!(md.contains(" °C and ") && !md.contains("not readable through NVML"));
    }

    /// Clocks whose temperature and power NVML could not read (all 0) are not reported as
    /// 0 °C and 0 W.
    #[test]
    fn unread_temperature_and_power_are_named_not_printed_as_zero() {
        let mut f = fixture();
        for r in &mut f.records {
            if let Some(c) = r.clocks.as_mut() {
                (c.temp_c, c.power_w) = (0, 0.0);
            }
        }
        let md = render_report(&f, &[]);
        assert!(
            md.contains("MHz, temperature and power not readable through NVML here."),
            "{md}"
        );
        assert!(!md.contains("0 °C"));
    }

    #[test]
    fn failed_verification_is_listed() {
        let mut f = fixture();
        f.records[0].verified = false;
        f.records[0].max_rel_err = Some(0.25);
        let md = render_report(&f, &[]);
        assert!(md.contains("1 failed"));
        assert!(md.contains("FAILED: square/hgemm/ours/v1 1024x1024x1024 fp16 hot launch (max relative error 2.5e-1)."));
        assert!(md.contains("Worst relative error: 2.5e-1"));
    }

    #[test]
    fn unknown_charts_and_experiments_still_render() {
        let mut f = fixture();
        f.records[0].experiment = "custom".into();
        let md = render_report(&f, &[PathBuf::from("extra chart.svg")]);
        assert!(md.contains("## custom (`custom`)"));
        assert!(md.contains("## Other charts"));
        assert!(md.contains("![extra chart](extra%20chart.svg)"));
    }

    #[test]
    fn empty_results_render() {
        let md = render_report(&ResultsFile::default(), &[]);
        assert!(md.contains("# roofline-lab report: unknown device"));
        assert!(md.contains("No ceilings were recorded."));
        assert!(md.contains("The results hold no records."));
        assert!(md.contains("0 of 0 records verified"));
        let mut one = fixture();
        one.records.truncate(1);
        let md = render_report(&one, &[]);
        assert!(md.contains("0 of 1 record verified") || md.contains("1 of 1 record verified"));
    }
}
