//! Sweep charts, one per experiment, each rendered only when the results
//! hold that experiment:
//!
//! - square: TFLOP/s vs size n (m = n = k), ours per variant and cuBLAS,
//!   with the tensor ceilings of the records' dtype;
//! - decode: two panels, GB/s and TFLOP/s vs batch M, cold (solid) and hot
//!   (dashed), with memory / tensor ceilings;
//! - elementwise: GB/s vs bytes moved per call (log x) per kernel, with the
//!   memory ceilings;
//! - fusion: time per call vs M (log-log) for fused, unfused and cuBLASLt,
//!   with the launch floors when they fall in range;
//! - llm: two panels vs M, one line per weight shape (N, K): TFLOP/s of ours
//!   and cuBLAS, and ours' speed relative to cuBLAS's (cuBLAS time / ours).
//!
//! A series is one combination of the attributes that vary within the chart
//! (implementation and variant, kernel, weight shape, timing, dtype, cache);
//! its legend label lists only the attributes that vary.

use plotters::style::RGBColor;

use crate::plot::frame::{draw_legend, render_svg, Area, Frame, Glyph, LegendEntry};
use crate::plot::style::{
    marker_for_impl, Axis, ColorCycle, Marker, Scale, TickFormat, COMPUTE_PALETTE, DATASHEET,
    LABEL_SIZE, MEMORY_PALETTE,
};
use crate::results::schema::{beside, impl_label, CeilingKind, Record, ResultsFile, Shape};

const SIZE: (u32, u32) = (1200, 740);
const WIDE: (u32, u32) = (1800, 740);
const LEGEND_W: u32 = 340;

/// Attributes that tell series apart: `main` picks color and marker,
/// `cache` picks solid (cold) or dashed (hot).
struct Attrs {
    main: Vec<String>,
    cache: String,
}

struct SeriesDef<'r> {
    label: String,
    color: RGBColor,
    marker: Marker,
    dashed: bool,
    recs: Vec<&'r Record>,
}

/// Groups records into series; see the module docs.
fn build_series<'r>(recs: &[&'r Record], attrs: &dyn Fn(&Record) -> Attrs) -> Vec<SeriesDef<'r>> {
    let all: Vec<(Attrs, &'r Record)> = recs.iter().map(|r| (attrs(r), *r)).collect();
    let n = all.first().map_or(0, |(a, _)| a.main.len());
    let varies = |i: usize| all.iter().any(|(a, _)| a.main[i] != all[0].0.main[i]);
    let main_varying: Vec<usize> = (0..n).filter(|&i| varies(i)).collect();
    let cache_varies = all.iter().any(|(a, _)| a.cache != all[0].0.cache);

    // group in first-appearance order
    let mut groups: Vec<(Vec<String>, String, Vec<&'r Record>)> = Vec::new();
    for (a, r) in all {
        match groups
            .iter_mut()
            .find(|(m, c, _)| *m == a.main && *c == a.cache)
        {
            Some(g) => g.2.push(r),
            None => groups.push((a.main, a.cache, vec![r])),
        }
    }
    groups.sort_by_key(|(_, _, rs)| rs[0].is_library() || rs[0].impl_ == "unfused_cublas");

    let mut colors = ColorCycle::default();
    let mut assigned: Vec<(Vec<String>, RGBColor)> = Vec::new();
    groups
        .into_iter()
        .map(|(main, cache, mut rs)| {
            let first = rs[0];
            let color = match assigned.iter().find(|(m, _)| *m == main) {
                Some((_, c)) => *c,
                None => {
                    let c = colors.next_for(&first.impl_);
                    assigned.push((main.clone(), c));
                    c
                }
            };
            let mut parts: Vec<String> = main_varying.iter().map(|&i| main[i].clone()).collect();
            if parts.is_empty() {
                parts.push(main.first().cloned().unwrap_or_default());
            }
            if cache_varies {
                parts.push(cache.clone());
            }
            rs.sort_by_key(|r| r.shape.primary());
            SeriesDef {
                label: parts
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>()
                    .join(", "),
                color,
                marker: marker_for_impl(&first.impl_),
                dashed: cache_varies && cache == "hot",
                recs: rs,
            }
        })
        .collect()
}

/// A horizontal reference line (a ceiling) in a panel.
struct RefLine {
    label: String,
    value: f64,
    color: RGBColor,
    dashed: bool,
}

/// Ceilings of `kind` whose names fit the dtype (a ceiling naming another
/// dtype, e.g. "tensor_cublas_bf16" for fp16 records, is left out) and pass
/// `keep`; colored like the roofline.
fn ref_lines(
    results: &ResultsFile,
    kind: CeilingKind,
    dtype: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<RefLine> {
    const DTYPES: [&str; 6] = ["fp16", "bf16", "fp32", "tf32", "fp8", "int8"];
    let palette: &[RGBColor] = if kind == CeilingKind::Memory {
        &MEMORY_PALETTE
    } else {
        &COMPUTE_PALETTE
    };
    let mut i = 0;
    results
        .run
        .ceilings
        .iter()
        .filter(|c| c.kind == kind && c.value.is_finite() && c.value > 0.0)
        .filter(|c| keep(&c.name))
        .filter(|c| !DTYPES.iter().any(|d| c.name.contains(d)) || c.name.contains(dtype))
        .map(|c| {
            let ds = c.is_datasheet();
            let color = if ds {
                DATASHEET
            } else {
                i += 1;
                palette[(i - 1) % palette.len()]
            };
            RefLine {
                label: if c.label.is_empty() {
                    c.name.clone()
                } else {
                    c.label.clone()
                },
                value: c.value,
                color,
                dashed: ds,
            }
        })
        .collect()
}

/// Draws one panel: series lines and markers, then the reference lines.
#[allow(clippy::too_many_arguments)]
fn draw_panel<'b>(
    root: &Area<'b>,
    area: &Area<'b>,
    title: &str,
    x: Axis,
    y: Axis,
    series: &[SeriesDef<'_>],
    xf: &dyn Fn(&Record) -> f64,
    yf: &dyn Fn(&Record) -> f64,
    refs: &[RefLine],
) -> anyhow::Result<()> {
    let mut f = Frame::new(root, area, title, x, y)?;
    for s in series {
        let pts: Vec<(f64, f64)> = s.recs.iter().map(|r| (xf(r), yf(r))).collect();
        f.polyline(&pts, s.color, 2, s.dashed)?;
    }
    for s in series {
        for r in &s.recs {
            f.marker(xf(r), yf(r), s.marker, s.color)?;
        }
    }
    for l in refs {
        f.hline(l.value, &l.label, l.color, l.dashed, LABEL_SIZE)?;
    }
    Ok(())
}

/// One panel of a chart: its title, y axis, series, a record's y value, reference lines.
struct Panel<'a, 'r> {
    title: String,
    y: Axis,
    series: &'a [SeriesDef<'r>],
    yf: &'a dyn Fn(&Record) -> f64,
    refs: &'a [RefLine],
}

/// Renders panels side by side over one x axis, the legend at the right: one panel on
/// [`SIZE`], more on [`WIDE`].
fn render_panels(
    x: &Axis,
    xf: &dyn Fn(&Record) -> f64,
    panels: &[Panel<'_, '_>],
    legend: &[LegendEntry],
) -> anyhow::Result<String> {
    let size = if panels.len() > 1 { WIDE } else { SIZE };
    render_svg(size, |root| {
        let (plots, legend_area) = root.split_horizontally(size.0 - LEGEND_W);
        for (area, p) in plots.split_evenly((1, panels.len())).iter().zip(panels) {
            let y = p.y.clone();
            draw_panel(
                root,
                area,
                &p.title,
                x.clone(),
                y,
                p.series,
                xf,
                p.yf,
                p.refs,
            )?;
        }
        draw_legend(&legend_area, legend, 70)
    })
}

/// A log2 axis of the records' M (n for squares).
fn m_axis(recs: &[&Record], title: &str) -> Axis {
    Axis::fit(
        Scale::Log2,
        recs.iter().map(|r| r.shape.primary() as f64),
        title,
        TickFormat::Number,
    )
}

/// The ceilings of `kind` for `dtype` that `keep` accepts, and a linear axis (`title`) that
/// holds them and the records' `value`s.
fn roofs_and_axis(
    results: &ResultsFile,
    recs: &[&Record],
    dtype: &str,
    kind: CeilingKind,
    keep: &dyn Fn(&str) -> bool,
    value: fn(&Record) -> f64,
    title: &str,
) -> (Vec<RefLine>, Axis) {
    let refs = ref_lines(results, kind, dtype, keep);
    let values = recs.iter().map(|r| value(r));
    let y = Axis::fit(
        Scale::Linear,
        values.chain(refs.iter().map(|l| l.value)),
        title,
        TickFormat::Number,
    );
    (refs, y)
}

/// The tensor ceilings of `dtype` and a TFLOP/s axis that holds them and the records' rates.
fn tensor_roofs(results: &ResultsFile, recs: &[&Record], dtype: &str) -> (Vec<RefLine>, Axis) {
    let tensor = |n: &str| n.contains("tensor");
    let tflops = |r: &Record| r.tflops;
    roofs_and_axis(
        results,
        recs,
        dtype,
        CeilingKind::Compute,
        &tensor,
        tflops,
        "TFLOP/s",
    )
}

/// The memory ceilings of `dtype` and a GB/s axis that holds them and the records' rates.
fn memory_roofs(results: &ResultsFile, recs: &[&Record], dtype: &str) -> (Vec<RefLine>, Axis) {
    let gbs = |r: &Record| r.gbs;
    roofs_and_axis(
        results,
        recs,
        dtype,
        CeilingKind::Memory,
        &|_| true,
        gbs,
        "GB/s",
    )
}

fn primary(r: &Record) -> f64 {
    r.shape.primary() as f64
}

fn legend_entries(series: &[SeriesDef<'_>], refs: &[&[RefLine]]) -> Vec<LegendEntry> {
    let mut out = vec![LegendEntry::new(Glyph::Heading, "Series")];
    for s in series {
        out.push(LegendEntry::new(
            Glyph::Series {
                marker: Some(s.marker),
                color: s.color,
                line: true,
                dashed: s.dashed,
            },
            s.label.clone(),
        ));
    }
    if series.iter().any(|s| s.dashed) {
        out.push(LegendEntry::new(
            Glyph::Note,
            "solid: cold cache; dashed: hot cache",
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for l in refs.iter().flat_map(|r| r.iter()) {
        if !seen.contains(&l.label.as_str()) {
            seen.push(&l.label);
            lines.push(LegendEntry::new(
                Glyph::Line {
                    color: l.color,
                    dashed: l.dashed,
                },
                l.label.clone(),
            ));
        }
    }
    if !lines.is_empty() {
        out.push(LegendEntry::new(Glyph::Heading, "Ceilings"));
        out.extend(lines);
    }
    out
}

fn device(results: &ResultsFile) -> &str {
    if results.run.device.is_empty() {
        "unknown device"
    } else {
        &results.run.device
    }
}

/// Most common dtype among records (for picking ceilings).
fn main_dtype(recs: &[&Record]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in recs {
        match counts.iter_mut().find(|(d, _)| *d == r.dtype) {
            Some(c) => c.1 += 1,
            None => counts.push((&r.dtype, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(d, _)| d.to_string())
        .unwrap_or_default()
}

/// The records' dtypes, the most common first, then in order of first appearance.
fn dtypes_of(recs: &[&Record]) -> Vec<String> {
    let main = main_dtype(recs);
    let mut out = vec![main.clone()];
    for r in recs {
        if !out.contains(&r.dtype) {
            out.push(r.dtype.clone());
        }
    }
    out
}

/// "n x k" of a GEMM (the weights of decode/fusion), or the shape label.
fn weights(shape: &Shape) -> String {
    match shape {
        Shape::Gemm { n, k, .. } => format!("N={n} K={k}"),
        other => other.label(),
    }
}

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Square GEMM sweep: TFLOP/s vs n.
pub fn square_svg(results: &ResultsFile) -> anyhow::Result<Option<String>> {
    let recs: Vec<&Record> = results
        .records_of("square")
        .filter(|r| positive(r.tflops) && r.shape.primary() > 0)
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    let series = build_series(&recs, &|r| Attrs {
        main: vec![
            impl_label(&r.impl_, &r.variant),
            r.kernel.clone(),
            r.timing.clone(),
            r.dtype.clone(),
        ],
        cache: r.cache.clone(),
    });
    // The sweep's bf16 pairs sit beside its fp16 series (the series' labels name the dtype
    // once two are present): the tensor ceilings of every dtype present, each once.
    let dtypes = dtypes_of(&recs);
    let (mut refs, mut y) = tensor_roofs(results, &recs, &dtypes[0]);
    for d in &dtypes[1..] {
        for l in tensor_roofs(results, &recs, d).0 {
            if !refs.iter().any(|r| r.label == l.label) {
                refs.push(l);
            }
        }
    }
    if dtypes.len() > 1 {
        let values = recs.iter().map(|r| r.tflops);
        y = Axis::fit(
            Scale::Linear,
            values.chain(refs.iter().map(|l| l.value)),
            "TFLOP/s",
            TickFormat::Number,
        );
    }
    let all_square = recs.iter().all(|r| r.shape.is_square());
    let xt = if all_square {
        "Matrix size n (m = n = k)"
    } else {
        "M"
    };
    let panel = Panel {
        title: format!("Square GEMM ({}) — {}", dtypes.join(", "), device(results)),
        y,
        series: &series,
        yf: &|r| r.tflops,
        refs: &refs,
    };
    let legend = legend_entries(&series, &[&refs]);
    Ok(Some(render_panels(
        &m_axis(&recs, xt),
        &primary,
        &[panel],
        &legend,
    )?))
}

/// Decode sweep: GB/s (left) and TFLOP/s (right) vs batch M.
pub fn decode_svg(results: &ResultsFile) -> anyhow::Result<Option<String>> {
    // Only the batch points: the sweep's plain-read floor (a byte-count shape) has no M.
    let recs: Vec<&Record> = results
        .records_of("decode")
        .filter(|r| matches!(r.shape, Shape::Gemm { .. }))
        .filter(|r| r.shape.primary() > 0 && r.gbs.is_finite() && r.tflops.is_finite())
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    // One series per implementation: our GEMV and (at large M) our HGEMM form one "ours" line.
    let series = build_series(&recs, &|r| Attrs {
        main: vec![
            if r.is_library() {
                impl_label(&r.impl_, &r.variant)
            } else {
                r.impl_.clone()
            },
            weights(&r.shape),
            r.kernel.clone(),
            r.timing.clone(),
            r.dtype.clone(),
        ],
        cache: r.cache.clone(),
    });
    let dtype = main_dtype(&recs);
    let (mem_refs, y_bw) = memory_roofs(results, &recs, &dtype);
    let (tc_refs, y_tf) = tensor_roofs(results, &recs, &dtype);
    let dev = device(results);
    let panels = [
        Panel {
            title: format!("Decode ({dtype}): bandwidth — {dev}"),
            y: y_bw,
            series: &series,
            yf: &|r| r.gbs,
            refs: &mem_refs,
        },
        Panel {
            title: format!("Decode ({dtype}): throughput — {dev}"),
            y: y_tf,
            series: &series,
            yf: &|r| r.tflops,
            refs: &tc_refs,
        },
    ];
    let legend = legend_entries(&series, &[&mem_refs, &tc_refs]);
    let x = m_axis(&recs, "Batch M (rows of activations)");
    Ok(Some(render_panels(&x, &primary, &panels, &legend)?))
}

/// Elementwise sweep: GB/s vs bytes moved per call.
pub fn elementwise_svg(results: &ResultsFile) -> anyhow::Result<Option<String>> {
    let recs: Vec<&Record> = results
        .records_of("elementwise")
        .filter(|r| positive(r.bytes) && r.gbs.is_finite())
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    let mut series = build_series(&recs, &|r| Attrs {
        main: vec![
            r.kernel.clone(),
            impl_label(&r.impl_, &r.variant),
            r.timing.clone(),
            r.dtype.clone(),
        ],
        cache: r.cache.clone(),
    });
    for s in &mut series {
        s.recs.sort_by(|a, b| a.bytes.total_cmp(&b.bytes));
    }
    let dtype = main_dtype(&recs);
    let (refs, y) = memory_roofs(results, &recs, &dtype);
    let x = Axis::fit(
        Scale::Log2,
        recs.iter().map(|r| r.bytes),
        "Bytes moved per call (work model)",
        TickFormat::Bytes,
    );
    let panel = Panel {
        title: format!("Elementwise kernels ({dtype}) — {}", device(results)),
        y,
        series: &series,
        yf: &|r| r.gbs,
        refs: &refs,
    };
    let legend = legend_entries(&series, &[&refs]);
    Ok(Some(render_panels(&x, &|r| r.bytes, &[panel], &legend)?))
}

/// Legend name of a fusion implementation.
fn fusion_label(kernel: &str, impl_: &str, variant: &str) -> String {
    let v = if variant.is_empty() {
        String::new()
    } else {
        format!(" {variant}")
    };
    match impl_ {
        // The plain GEMM measured beside the fused one: what the epilogue costs.
        "ours" if kernel == "hgemm" => format!("GEMM alone (ours{v})"),
        "ours" => format!("fused (ours{v})"),
        "unfused" => format!("unfused (ours{v})"),
        "unfused_cublas" => "unfused (cuBLAS GEMM + epilogue)".to_string(),
        "cublaslt" => "cuBLASLt fused epilogue".to_string(),
        other => impl_label(other, variant),
    }
}

/// Fusion sweep: time per call vs M.
pub fn fusion_svg(results: &ResultsFile) -> anyhow::Result<Option<String>> {
    let recs: Vec<&Record> = results
        .records_of("fusion")
        .filter(|r| positive(r.median_ms) && r.shape.primary() > 0)
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    let series = build_series(&recs, &|r| Attrs {
        main: vec![
            fusion_label(&r.kernel, &r.impl_, &r.variant),
            weights(&r.shape),
            r.timing.clone(),
            r.dtype.clone(),
        ],
        cache: r.cache.clone(),
    });
    let dtype = main_dtype(&recs);
    let floors: Vec<RefLine> = ref_lines(results, CeilingKind::Latency, &dtype, &|_| true);
    let y = Axis::fit(
        Scale::Log10,
        recs.iter().map(|r| r.median_us()),
        "Time per call (µs, median)",
        TickFormat::Number,
    );
    let floors: Vec<RefLine> = floors.into_iter().filter(|l| y.contains(l.value)).collect();
    let panel = Panel {
        title: format!("Fusion: {} ({dtype}) — {}", recs[0].kernel, device(results)),
        y,
        series: &series,
        yf: &|r| r.median_us(),
        refs: &floors,
    };
    let legend = legend_entries(&series, &[&floors]);
    let x = m_axis(&recs, "M (rows of activations)");
    Ok(Some(render_panels(&x, &primary, &[panel], &legend)?))
}

/// "cold L2, kernel timing": the cache and timing modes of `recs` (several joined by "/").
fn modes(recs: &[&Record]) -> String {
    let distinct = |f: &dyn Fn(&Record) -> &str| {
        let mut v: Vec<&str> = Vec::new();
        for r in recs {
            if !v.contains(&f(r)) {
                v.push(f(r));
            }
        }
        v.join("/")
    };
    format!(
        "{} L2, {} timing",
        distinct(&|r| &r.cache),
        distinct(&|r| &r.timing)
    )
}

/// LLM projection sweep: TFLOP/s (left) and ours / cuBLAS speed (right) vs M, a line per
/// weight shape.
pub fn llm_svg(results: &ResultsFile) -> anyhow::Result<Option<String>> {
    let recs: Vec<&Record> = results
        .records_of("llm")
        .filter(|r| matches!(r.shape, Shape::Gemm { .. }))
        .filter(|r| positive(r.tflops) && positive(r.median_ms) && r.shape.primary() > 0)
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    let series = build_series(&recs, &|r| Attrs {
        main: vec![
            weights(&r.shape),
            impl_label(&r.impl_, &r.variant),
            r.timing.clone(),
            r.dtype.clone(),
        ],
        cache: r.cache.clone(),
    });
    // The right panel: our series, at the points that have a cuBLAS twin.
    let ratio =
        |r: &Record| beside(&recs, r, "cublas").map_or(f64::NAN, |c| c.median_ms / r.median_ms);
    let ratios: Vec<SeriesDef<'_>> = series
        .iter()
        .filter(|s| !s.recs[0].is_library())
        .map(|s| SeriesDef {
            label: s.label.clone(),
            color: s.color,
            marker: s.marker,
            dashed: s.dashed,
            recs: s
                .recs
                .iter()
                .copied()
                .filter(|r| ratio(r).is_finite())
                .collect(),
        })
        .filter(|s| !s.recs.is_empty())
        .collect();
    let dtype = main_dtype(&recs);
    let (tc_refs, y_tf) = tensor_roofs(results, &recs, &dtype);
    let parity = [RefLine {
        label: "cuBLAS (1.0×)".into(),
        value: 1.0,
        color: DATASHEET,
        dashed: true,
    }];
    let y_ratio = Axis::fit(
        Scale::Linear,
        ratios
            .iter()
            .flat_map(|s| s.recs.iter().map(|r| ratio(r)))
            .chain([1.0]),
        "Ours / cuBLAS speed (×)",
        TickFormat::Number,
    );
    let mode = modes(&recs);
    let panels = [
        Panel {
            title: format!("LLM GEMMs ({dtype}, {mode}) — {}", device(results)),
            y: y_tf,
            series: &series,
            yf: &|r| r.tflops,
            refs: &tc_refs,
        },
        Panel {
            title: format!("Ours / cuBLAS speed ({mode})"),
            y: y_ratio,
            series: &ratios,
            yf: &ratio,
            refs: &parity,
        },
    ];
    let mut legend = legend_entries(&series, &[&tc_refs]);
    legend.insert(
        1 + series.len(),
        LegendEntry::new(
            Glyph::Note,
            "right: cuBLAS time / ours, per weight shape (above 1: ours faster)",
        ),
    );
    let x = m_axis(&recs, "M (rows of activations: tokens)");
    Ok(Some(render_panels(&x, &primary, &panels, &legend)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::{assert_well_formed, svg_texts};
    use crate::results::schema::tests::{fixture, fixture_with_llm};

    fn texts(svg: &str) -> String {
        svg_texts(svg).join("\n")
    }

    /// Checks that `svg` is well formed and has every one of `wants` among its texts; returns
    /// the texts.
    fn texts_with(svg: &str, wants: &[&str]) -> String {
        assert_well_formed(svg);
        let t = texts(svg);
        for want in wants {
            assert!(t.contains(want), "missing {want:?}\n{t}");
        }
        t
    }

    #[test]
    fn square_chart() {
        let svg = square_svg(&fixture()).unwrap().unwrap();
        let t = texts_with(
            &svg,
            &[
                "Square GEMM (fp16) — NVIDIA H200",
                "Matrix size n (m = n = k)",
                "TFLOP/s",
                "ours v1",
                "ours v4",
                "cuBLAS",
                "WMMA tensor 598 TFLOP/s",
                "cuBLAS FP16 tensor 712 TFLOP/s",
                "4096",
            ],
        );
        // the bf16 ceiling does not apply to fp16 records
        assert!(!t.contains("BF16"));
    }

    /// The square sweep's fp16 and bf16 pairs in one fixture: bf16 pairs at 4096³ and 8192³.
    pub(crate) fn fixture_with_bf16_square() -> ResultsFile {
        let mut f = fixture();
        let extra: Vec<Record> = f
            .records
            .iter()
            .filter(|r| r.experiment == "square" && r.shape.primary() >= 4096)
            .filter(|r| r.impl_ == "cublas" || r.variant == "v4")
            .map(|r| {
                let mut b = r.clone();
                b.dtype = "bf16".into();
                b.tflops *= if r.impl_ == "cublas" { 1.02 } else { 0.99 };
                b
            })
            .collect();
        f.records.extend(extra);
        f
    }

    /// With bf16 pairs beside the fp16 series, the chart names both dtypes: in its title, in
    /// the series' labels, and both cuBLAS ceilings.
    #[test]
    fn square_chart_names_the_dtype_of_each_series() {
        let svg = square_svg(&fixture_with_bf16_square()).unwrap().unwrap();
        texts_with(
            &svg,
            &[
                "Square GEMM (fp16, bf16) — NVIDIA H200",
                "ours v4, fp16",
                "ours v4, bf16",
                "cuBLAS, bf16",
                "cuBLAS FP16 tensor 712 TFLOP/s",
                "cuBLAS BF16 tensor 706.5 TFLOP/s",
                "WMMA tensor 598 TFLOP/s",
            ],
        );
    }

    #[test]
    fn decode_chart_has_two_panels() {
        let svg = decode_svg(&fixture()).unwrap().unwrap();
        texts_with(
            &svg,
            &[
                "bandwidth — NVIDIA H200",
                "throughput — NVIDIA H200",
                "GB/s",
                "TFLOP/s",
                "Batch M (rows of activations)",
                "ours, cold",
                "cuBLAS, hot",
                "HBM copy 4.25 TB/s",
                "L2 read 9.85 TB/s",
                "dashed: hot cache",
            ],
        );
        assert!(svg.contains("stroke-dasharray") || svg.matches("<polyline").count() > 8);
    }

    #[test]
    fn elementwise_chart() {
        let svg = elementwise_svg(&fixture()).unwrap().unwrap();
        texts_with(
            &svg,
            &[
                "Elementwise kernels (fp16) — NVIDIA H200",
                "Bytes moved per call (work model)",
                "GB/s",
                "relu, cold",
                "gelu, hot",
                "layernorm, cold",
                "copy, cold",
                "HBM copy 4.25 TB/s",
                "GiB",
            ],
        );
    }

    #[test]
    fn fusion_chart() {
        let svg = fusion_svg(&fixture()).unwrap().unwrap();
        texts_with(
            &svg,
            &[
                "Fusion: gemm_bias_gelu (fp16) — NVIDIA H200",
                "Time per call (µs, median)",
                "M (rows of activations)",
                "fused (ours v1)",
                "unfused (ours v1)",
                "unfused (cuBLAS GEMM + epilogue)",
                "cuBLASLt fused epilogue",
            ],
        );
    }

    #[test]
    fn llm_chart_has_rates_and_ratios_per_weight_shape() {
        let svg = llm_svg(&fixture_with_llm()).unwrap().unwrap();
        let t = texts_with(
            &svg,
            &[
                "LLM GEMMs (fp16, cold L2, kernel timing) — NVIDIA H200",
                "Ours / cuBLAS speed (cold L2, kernel timing)",
                "M (rows of activations: tokens)",
                "TFLOP/s",
                "Ours / cuBLAS speed (×)",
                "N=4096 K=4096, ours v11",
                "N=14336 K=4096, ours v11",
                "N=4096 K=4096, cuBLAS",
                "N=14336 K=4096, cuBLAS",
                "cuBLAS (1.0×)",
                "cuBLAS FP16 tensor 712 TFLOP/s",
                "8192",
            ],
        );
        assert!(!t.contains("BF16"));
    }

    #[test]
    fn llm_ratios_pair_each_of_ours_with_the_cublas_beside_it() {
        let f = fixture_with_llm();
        let recs: Vec<&Record> = f.records_of("llm").collect();
        let ours: Vec<&Record> = recs.iter().copied().filter(|r| r.impl_ == "ours").collect();
        assert_eq!(ours.len(), 4);
        for o in ours {
            let c = beside(&recs, o, "cublas").expect("a cuBLAS twin");
            assert_eq!(
                (&c.shape, &c.cache, &c.timing),
                (&o.shape, &o.cache, &o.timing)
            );
        }
        // a twin in another timing mode is no twin
        let mut g = fixture_with_llm();
        for r in g
            .records
            .iter_mut()
            .filter(|r| r.experiment == "llm" && r.impl_ == "cublas")
        {
            r.timing = "graph".into();
        }
        let recs: Vec<&Record> = g.records_of("llm").collect();
        assert!(recs
            .iter()
            .filter(|r| r.impl_ == "ours")
            .all(|o| beside(&recs, o, "cublas").is_none()));
        // ... and the chart names both modes, and still renders
        let svg = llm_svg(&g).unwrap().unwrap();
        assert_well_formed(&svg);
        assert!(texts(&svg).contains("(fp16, cold L2, kernel/graph timing)"));
    }

    #[test]
    fn absent_experiments_give_none() {
        let mut f = fixture_with_llm();
        f.records.retain(|r| r.experiment == "bench");
        assert!(square_svg(&f).unwrap().is_none());
        assert!(decode_svg(&f).unwrap().is_none());
        assert!(elementwise_svg(&f).unwrap().is_none());
        assert!(fusion_svg(&f).unwrap().is_none());
        assert!(llm_svg(&f).unwrap().is_none());
    }

    #[test]
    fn single_point_series_still_render() {
        let mut f = fixture();
        f.records
            .retain(|r| r.experiment == "square" && r.impl_ == "cublas");
        f.records.truncate(1);
        let svg = square_svg(&f).unwrap().unwrap();
        assert_well_formed(&svg);
        assert!(texts(&svg).contains("cuBLAS"));
    }

    #[test]
    fn series_labels_only_name_what_varies() {
        let f = fixture();
        let recs: Vec<&Record> = f.records_of("decode").collect();
        let s = build_series(&recs, &|r| Attrs {
            main: vec![impl_label(&r.impl_, &r.variant), r.timing.clone()],
            cache: r.cache.clone(),
        });
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "ours v2, cold",
                "ours v2, hot",
                "cuBLAS, cold",
                "cuBLAS, hot"
            ]
        );
        // cold and hot of one implementation share a color, differ in dash
        assert_eq!(s[0].color, s[1].color);
        assert!(!s[0].dashed && s[1].dashed);
        assert_ne!(s[0].color, s[2].color);
        assert!(s[0]
            .recs
            .windows(2)
            .all(|w| w[0].shape.primary() <= w[1].shape.primary()));
    }
}
