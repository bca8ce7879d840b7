//! The roofline chart: arithmetic intensity (FLOP/byte) against TFLOP/s,
//! both log scale, with every ceiling of the run and every record.
//!
//! - Memory ceilings are diagonals, TFLOP/s = AI × GB/s / 1000, drawn up to
//!   the highest compute ceiling of the same source (measured/datasheet).
//! - Compute ceilings are horizontals, drawn from where they meet the
//!   highest memory ceiling of the same source.
//! - Datasheet ceilings are gray and dashed; measured ones colored, solid.
//! - Latency ceilings (launch floors) are a minimum time, not a roof in this
//!   plane: they are listed in the legend, and records whose bound is
//!   "latency" get a ring.
//! - Records without FLOPs (copy) cannot be placed and are counted in a note.

use std::path::Path;

use plotters::style::RGBColor;

use crate::plot::frame::{draw_legend, draw_ring, render_svg, Frame, Glyph, LegendEntry};
use crate::plot::style::{
    text_height, Anchor, Axis, Marker, Scale, TickFormat, COMPUTE_PALETTE, DATASHEET, LABEL_SIZE,
    LIBRARY_PALETTE, MEMORY_PALETTE, MUTED, OURS_PALETTE, POINT_LABEL_SIZE,
};
use crate::results::atomic::write_atomic;
use crate::results::schema::{impl_label, Ceiling, CeilingKind, Record, ResultsFile};

const SIZE: (u32, u32) = (1320, 820);

/// A pixel anchor on a ceiling line and two label offsets to try there.
type Spot = ((i32, i32), [(i32, i32, Anchor); 2]);
const LEGEND_W: u32 = 360;

/// Color and marker of an implementation on the roofline.
fn impl_style(impl_: &str) -> (RGBColor, Marker) {
    let m = crate::plot::style::marker_for_impl(impl_);
    let c = match impl_ {
        "ours" => OURS_PALETTE[0],
        "unfused" => OURS_PALETTE[3],
        "cublas" => LIBRARY_PALETTE[0],
        "cublaslt" => LIBRARY_PALETTE[1],
        "unfused_cublas" => LIBRARY_PALETTE[2],
        _ => MUTED,
    };
    (c, m)
}

fn plottable(r: &Record) -> bool {
    r.flops > 0.0 && r.ai.is_finite() && r.ai > 0.0 && r.tflops.is_finite() && r.tflops > 0.0
}

/// Intensity by the DRAM bytes the hardware counters measured (`--counters`), where the
/// record has them: FLOPs of the model over bytes actually moved. Hot-L2 kernels move far
/// less than the model and sit far to the right of their model point.
fn measured_ai(r: &Record) -> Option<f64> {
    r.counters
        .dram_bytes_measured
        .filter(|b| *b > 0.0)
        .map(|b| r.flops / b)
        .filter(|x| x.is_finite() && *x > 0.0)
}

fn label_of(c: &Ceiling) -> &str {
    if c.label.is_empty() {
        &c.name
    } else {
        &c.label
    }
}

/// Highest value among ceilings of `kind` with the given source, falling
/// back to all ceilings of that kind.
fn top(ceilings: &[&Ceiling], datasheet: bool) -> Option<f64> {
    let pick = |f: &dyn Fn(&&&Ceiling) -> bool| {
        ceilings
            .iter()
            .filter(f)
            .map(|c| c.value)
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
    };
    pick(&|c| c.is_datasheet() == datasheet).or_else(|| pick(&|_| true))
}

/// Renders the roofline chart as an SVG string.
pub fn roofline_svg(results: &ResultsFile) -> anyhow::Result<String> {
    let pts: Vec<&Record> = results.records.iter().filter(|r| plottable(r)).collect();
    let skipped = results.records.len() - pts.len();
    let valid = |c: &&Ceiling| c.value.is_finite() && c.value > 0.0;
    let mem: Vec<&Ceiling> = results
        .run
        .ceilings
        .iter()
        .filter(|c| c.kind == CeilingKind::Memory)
        .filter(valid)
        .collect();
    let comp: Vec<&Ceiling> = results
        .run
        .ceilings
        .iter()
        .filter(|c| c.kind == CeilingKind::Compute)
        .filter(valid)
        .collect();
    let lat: Vec<&Ceiling> = results
        .run
        .ceilings
        .iter()
        .filter(|c| c.kind == CeilingKind::Latency)
        .collect();

    let mut xs: Vec<f64> = pts.iter().map(|r| r.ai).collect();
    xs.extend(pts.iter().filter_map(|r| measured_ai(r)));
    for c in &comp {
        for m in &mem {
            xs.push(c.value * 1000.0 / m.value);
        }
    }
    let mut ys: Vec<f64> = pts.iter().map(|r| r.tflops).collect();
    ys.extend(comp.iter().map(|c| c.value));
    let x = Axis::fit(
        Scale::Log10,
        xs,
        "Arithmetic intensity (FLOP/byte)",
        TickFormat::Number,
    );
    let y = Axis::fit(
        Scale::Log10,
        ys,
        "Performance (TFLOP/s)",
        TickFormat::Number,
    );

    let device = if results.run.device.is_empty() {
        "unknown device"
    } else {
        results.run.device.as_str()
    };
    let title = format!("Roofline — {device}");

    render_svg(SIZE, |root| {
        let (plot_area, legend_area) = root.split_horizontally(SIZE.0 - LEGEND_W);
        let mut f = Frame::new(root, &plot_area, &title, x, y)?;
        let mut legend = Vec::new();

        // 1. ceilings (lines now, labels after the markers are reserved)
        struct PendingLabel {
            text: String,
            color: RGBColor,
            /// (anchor pixel, offset candidates) in preference order
            spots: Vec<Spot>,
        }
        let mut pending: Vec<PendingLabel> = Vec::new();
        let d = text_height(LABEL_SIZE) / 2 + 4;
        let (mut mi, mut ci) = (0, 0);
        let mut ceiling_entries = Vec::new();
        for c in mem.iter().chain(comp.iter()) {
            let ds = c.is_datasheet();
            let color = if ds {
                DATASHEET
            } else if c.kind == CeilingKind::Memory {
                mi += 1;
                MEMORY_PALETTE[(mi - 1) % MEMORY_PALETTE.len()]
            } else {
                ci += 1;
                COMPUTE_PALETTE[(ci - 1) % COMPUTE_PALETTE.len()]
            };
            ceiling_entries.push(LegendEntry::new(
                Glyph::Line { color, dashed: ds },
                label_of(c),
            ));
            let width = if ds { 1 } else { 2 };
            let seg = if c.kind == CeilingKind::Memory {
                let bw = c.value;
                let ridge = top(&comp, ds).map_or(f.x.hi, |tc| tc * 1000.0 / bw);
                let x0 = f.x.lo.max(f.y.lo * 1000.0 / bw);
                let x1 = f.x.hi.min(f.y.hi * 1000.0 / bw).min(ridge);
                (x0 < x1).then(|| [(x0, x0 * bw / 1000.0), (x1, x1 * bw / 1000.0)])
            } else {
                let v = c.value;
                let x0 = top(&mem, ds).map_or(f.x.lo, |tm| (v * 1000.0 / tm).max(f.x.lo));
                (f.y.contains(v) && x0 < f.x.hi).then_some([(x0, v), (f.x.hi, v)])
            };
            let Some(seg) = seg else { continue };
            f.polyline(&seg, color, width, ds)?;
            let (p0, p1) = (f.px(seg[0].0, seg[0].1), f.px(seg[1].0, seg[1].1));
            let at = |t: f64| {
                (
                    p0.0 + ((p1.0 - p0.0) as f64 * t) as i32,
                    p0.1 + ((p1.1 - p0.1) as f64 * t) as i32,
                )
            };
            let spots = if c.kind == CeilingKind::Memory {
                // above-left / below-right of a point on the rising diagonal
                [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9]
                    .iter()
                    .map(|&t| (at(t), [(-4, -d, Anchor::Right), (4, d, Anchor::Left)]))
                    .collect()
            } else {
                let mut v = vec![(p1, [(-8, -d, Anchor::Right), (-8, d, Anchor::Right)])];
                for t in [0.5, 0.0] {
                    v.push((at(t), [(8, -d, Anchor::Left), (8, d, Anchor::Left)]));
                }
                v
            };
            pending.push(PendingLabel {
                text: label_of(c).to_string(),
                color,
                spots,
            });
        }

        // 2. markers, library first so ours are drawn on top
        let mut order: Vec<&&Record> = pts.iter().collect();
        order.sort_by_key(|r| !r.is_library());
        let mut families: Vec<&str> = Vec::new();
        for r in &order {
            let (color, marker) = impl_style(&r.impl_);
            f.marker(r.ai, r.tflops, marker, color)?;
            if r.bound == "latency" && f.contains(r.ai, r.tflops) {
                let c = f.px(r.ai, r.tflops);
                draw_ring(f.root, c, 10, MUTED)?;
            }
            if !families.contains(&r.impl_.as_str()) {
                families.push(&r.impl_);
            }
            // The same record placed by its measured DRAM bytes: a hollow ring on a dashed
            // line from the model point (same time, so the same height).
            if let Some(x) = measured_ai(r) {
                f.polyline(&[(r.ai, r.tflops), (x, r.tflops)], color, 1, true)?;
                if f.contains(x, r.tflops) {
                    draw_ring(f.root, f.px(x, r.tflops), 6, color)?;
                }
            }
        }

        // 3. ceiling labels (skipped only if no spot is free; still in legend)
        for p in &pending {
            for (at, cands) in &p.spots {
                if f.label(*at, &p.text, LABEL_SIZE, p.color, cands)? {
                    break;
                }
            }
        }

        // 4. point labels by shape, thinned by the placer
        let cands = [
            (9, 0, Anchor::Left),
            (-9, 0, Anchor::Right),
            (0, -13, Anchor::Center),
            (0, 13, Anchor::Center),
        ];
        let mut labelled: Vec<(String, (i32, i32))> = Vec::new();
        for r in pts.iter() {
            if !f.contains(r.ai, r.tflops) {
                continue;
            }
            let text = r.shape.label();
            let at = f.px(r.ai, r.tflops);
            // one label per shape per neighbourhood
            if labelled
                .iter()
                .any(|(t, p)| *t == text && (p.0 - at.0).abs() < 40 && (p.1 - at.1).abs() < 40)
            {
                continue;
            }
            let (color, _) = impl_style(&r.impl_);
            if f.label(at, &text, POINT_LABEL_SIZE, color, &cands)? {
                labelled.push((text, at));
            }
        }

        // 5. legend
        families.sort_by_key(|i| (crate::results::schema::is_library_impl(i), i.to_string()));
        legend.push(LegendEntry::new(Glyph::Heading, "Measurements"));
        for fam in &families {
            let (color, marker) = impl_style(fam);
            legend.push(LegendEntry::new(
                Glyph::Series {
                    marker: Some(marker),
                    color,
                    line: false,
                    dashed: false,
                },
                impl_label(fam, ""),
            ));
        }
        if pts.iter().any(|r| r.bound == "latency") {
            legend.push(LegendEntry::new(Glyph::Ring(MUTED), "latency-bound"));
        }
        if pts.iter().any(|r| measured_ai(r).is_some()) {
            legend.push(LegendEntry::new(
                Glyph::Ring(OURS_PALETTE[0]),
                "hollow, dashed from its point: placed by the DRAM bytes the hardware counters measured",
            ));
        }
        if pts.is_empty() {
            legend.push(LegendEntry::new(Glyph::Note, "no records with FLOPs"));
        }
        if skipped > 0 {
            legend.push(LegendEntry::new(
                Glyph::Note,
                format!("{skipped} records without FLOPs (e.g. copy) are not plotted"),
            ));
        }
        if !ceiling_entries.is_empty() {
            legend.push(LegendEntry::new(Glyph::Heading, "Ceilings"));
            legend.extend(ceiling_entries);
            legend.push(LegendEntry::new(
                Glyph::Note,
                "solid: measured; dashed gray: datasheet",
            ));
        }
        if !lat.is_empty() {
            legend.push(LegendEntry::new(Glyph::Heading, "Launch floors"));
            legend.push(LegendEntry::new(
                Glyph::Note,
                "no call finishes faster; small problems sit below the roofs",
            ));
            for c in &lat {
                legend.push(LegendEntry::new(
                    Glyph::Note,
                    format!("{} (minimum time per call)", label_of(c)),
                ));
            }
        }
        draw_legend(&legend_area, &legend, 70)?;
        Ok(())
    })
}

/// Renders the roofline chart and writes it to `path` atomically.
pub fn roofline_chart(results: &ResultsFile, path: impl AsRef<Path>) -> anyhow::Result<()> {
    let svg = roofline_svg(results)?;
    write_atomic(path.as_ref(), svg.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::{assert_well_formed, svg_texts};
    use crate::results::schema::tests::fixture;

    #[test]
    fn roofline_from_fixture() {
        let f = fixture();
        let svg = roofline_svg(&f).unwrap();
        assert_well_formed(&svg);
        let texts = svg_texts(&svg);
        let all = texts.join("\n");
        for want in [
            "Roofline — NVIDIA H200",
            "Arithmetic intensity (FLOP/byte)",
            "Performance (TFLOP/s)",
            "cuBLAS",
            "cuBLASLt",
            "ours",
            "HBM copy 4.25 TB/s",
            "Datasheet HBM3e 4.8 TB/s",
            "cuBLAS FP16 tensor 712 TFLOP/s",
            "Launch floor 2.4 us",
            "latency-bound",
            "4096x4096x4096",
            "without FLOPs",
        ] {
            assert!(all.contains(want), "missing text {want:?}");
        }
        // every measured/datasheet roof appears (legend at least)
        for c in &f.run.ceilings {
            assert!(all.contains(&c.label), "ceiling {} not labelled", c.name);
        }
        // markers of several kinds
        assert!(svg.contains("<circle"));
        assert!(svg.contains("<polygon"));
    }

    #[test]
    fn roofline_labels_ceilings_on_the_plot() {
        // the main roofs are labelled on their lines, not only in the legend
        let svg = roofline_svg(&fixture()).unwrap();
        let texts = svg_texts(&svg);
        let count = |s: &str| texts.iter().filter(|t| t.as_str() == s).count();
        assert_eq!(count("HBM copy 4.25 TB/s"), 2);
        assert_eq!(count("cuBLAS FP16 tensor 712 TFLOP/s"), 2);
    }

    #[test]
    fn roofline_places_counted_records_by_their_measured_bytes() {
        let plain = roofline_svg(&fixture()).unwrap();
        assert!(!plain.contains("hollow, dashed"));
        let f = ResultsFile {
            records: crate::results::counters_table::tests::with_sample_counters(),
            ..fixture()
        };
        let r = f.records.iter().find(|r| r.counters.is_present()).unwrap();
        assert!(
            measured_ai(r).unwrap() < r.ai,
            "more bytes: lower intensity"
        );
        let svg = roofline_svg(&f).unwrap();
        assert_well_formed(&svg);
        assert!(
            svg.contains("hollow, dashed from its point"),
            "the legend says what the rings are"
        );
        // one more ring (the hollow marker) and the legend's ring
        let rings = |s: &str| s.matches("<circle").count();
        assert!(
            rings(&svg) >= rings(&plain) + 2,
            "{} vs {}",
            rings(&svg),
            rings(&plain)
        );
    }

    #[test]
    fn roofline_without_records_or_ceilings() {
        let mut f = fixture();
        f.records.clear();
        let svg = roofline_svg(&f).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("no records with FLOPs"));
        f.run.ceilings.clear();
        f.run.device.clear();
        let svg = roofline_svg(&f).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("unknown device"));
    }

    #[test]
    fn roofline_chart_writes_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.svg");
        roofline_chart(&fixture(), &p).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().starts_with("<svg"));
    }
}
