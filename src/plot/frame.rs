//! Drawing core shared by every chart: a plot panel with axes in "plot
//! units" (see [`Axis`]), markers and text placed in pixels, and a legend
//! panel drawn by hand beside the plot.

use std::ops::Range;

use anyhow::anyhow;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::plot::style::{
    text_width, Anchor, Axis, Marker, Placer, Rect, AXIS_TITLE_SIZE, FONT, GRID_BOLD, GRID_LIGHT,
    LEGEND_SIZE, MUTED, TEXT, TICK_SIZE, TITLE_SIZE,
};

/// A linear f64 axis (in plot units) whose grid lines and labels sit
/// exactly at the given bold and light points.
#[derive(Clone)]
pub struct TickedRange {
    inner: RangedCoordf64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl TickedRange {
    pub fn new(range: Range<f64>, bold: Vec<f64>, light: Vec<f64>) -> Self {
        TickedRange {
            inner: range.into(),
            bold,
            light,
        }
    }
}

impl Ranged for TickedRange {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}

pub type Cart = Cartesian2d<TickedRange, TickedRange>;
pub type Area<'b> = DrawingArea<SVGBackend<'b>, Shift>;

/// Converts a plotters error into anyhow.
pub fn pe<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing chart: {e}")
}

/// Renders an SVG of the given size into a string; `draw` gets the root area.
pub fn render_svg(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(pe)?;
        draw(&root)?;
        root.present().map_err(pe)?;
    }
    Ok(buf)
}

fn hpos(a: Anchor) -> HPos {
    match a {
        Anchor::Left => HPos::Left,
        Anchor::Center => HPos::Center,
        Anchor::Right => HPos::Right,
    }
}

/// Draws text at a pixel position of `area`, vertically centered.
pub fn draw_text(
    area: &Area<'_>,
    pos: (i32, i32),
    text: &str,
    size: f64,
    color: RGBColor,
    anchor: Anchor,
) -> anyhow::Result<()> {
    let style = TextStyle::from((FONT, size).into_font())
        .color(&color)
        .pos(Pos::new(hpos(anchor), VPos::Center));
    area.draw(&Text::new(text.to_string(), pos, style))
        .map_err(pe)
}

/// Draws a marker centered at a pixel position of `area`.
pub fn draw_marker(
    area: &Area<'_>,
    c: (i32, i32),
    marker: Marker,
    color: RGBColor,
    r: i32,
) -> anyhow::Result<()> {
    let fill = color.filled();
    let (x, y) = c;
    match marker {
        Marker::Circle => area.draw(&Circle::new(c, r, fill)),
        Marker::Triangle => area.draw(&TriangleMarker::new(c, r + 1, fill)),
        Marker::Square => area.draw(&Rectangle::new(
            [(x - r + 1, y - r + 1), (x + r - 1, y + r - 1)],
            fill,
        )),
        Marker::Diamond => area.draw(&Polygon::new(
            vec![
                (x, y - r - 1),
                (x + r + 1, y),
                (x, y + r + 1),
                (x - r - 1, y),
            ],
            fill,
        )),
        Marker::Cross => area.draw(&Cross::new(c, r, color.stroke_width(3))),
    }
    .map_err(pe)
}

/// Draws an open ring (used to flag latency-bound points).
pub fn draw_ring(area: &Area<'_>, c: (i32, i32), r: i32, color: RGBColor) -> anyhow::Result<()> {
    area.draw(&Circle::new(c, r, color.stroke_width(2)))
        .map_err(pe)
}

/// Draws a horizontal line sample in pixels (solid or dashed).
fn draw_line_px(
    area: &Area<'_>,
    from: (i32, i32),
    to: (i32, i32),
    color: RGBColor,
    width: u32,
    dashed: bool,
) -> anyhow::Result<()> {
    let style = color.stroke_width(width);
    if dashed {
        area.draw(&DashedPathElement::new(vec![from, to], 7, 4, style))
    } else {
        area.draw(&PathElement::new(vec![from, to], style))
    }
    .map_err(pe)
}

/// A plot panel: title, axes, grid, and helpers to draw data in data units.
pub struct Frame<'a, 'b> {
    /// The whole SVG, for drawing in absolute pixels.
    pub root: &'a Area<'b>,
    pub chart: ChartContext<'a, SVGBackend<'b>, Cart>,
    pub x: Axis,
    pub y: Axis,
    /// Pixel bounds of the plotting area, with already placed labels.
    pub placer: Placer,
}

impl<'a, 'b> Frame<'a, 'b> {
    /// Builds the panel on `area` (a part of `root`) and draws axes and grid.
    pub fn new(
        root: &'a Area<'b>,
        area: &'a Area<'b>,
        title: &str,
        x: Axis,
        y: Axis,
    ) -> anyhow::Result<Self> {
        let (xb, xl) = x.ticks();
        let (yb, yl) = y.ticks();
        let xr = TickedRange::new(x.plot_range(), xb, xl);
        let yr = TickedRange::new(y.plot_range(), yb, yl);
        let mut chart = ChartBuilder::on(area)
            .caption(title, (FONT, TITLE_SIZE).into_font().color(&TEXT))
            .margin(14)
            .margin_right(26)
            .x_label_area_size(60)
            .y_label_area_size(84)
            .build_cartesian_2d(xr, yr)
            .map_err(pe)?;
        {
            let xf = |v: &f64| x.tick_label(*v);
            let yf = |v: &f64| y.tick_label(*v);
            chart
                .configure_mesh()
                .x_desc(x.title.as_str())
                .y_desc(y.title.as_str())
                .axis_desc_style((FONT, AXIS_TITLE_SIZE).into_font().color(&TEXT))
                .label_style((FONT, TICK_SIZE).into_font().color(&TEXT))
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .bold_line_style(GRID_BOLD.stroke_width(1))
                .light_line_style(GRID_LIGHT.stroke_width(1))
                .axis_style(MUTED.stroke_width(1))
                .draw()
                .map_err(pe)?;
        }
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let placer = Placer::new(Rect::new(
            xs.start + 2,
            ys.start + 2,
            xs.end - 2,
            ys.end - 2,
        ));
        Ok(Frame {
            root,
            chart,
            x,
            y,
            placer,
        })
    }

    /// Pixel position (absolute) of a data point.
    pub fn px(&self, xd: f64, yd: f64) -> (i32, i32) {
        self.chart
            .backend_coord(&(self.x.to_plot(xd), self.y.to_plot(yd)))
    }

    /// True when the data point lies inside both axes.
    pub fn contains(&self, xd: f64, yd: f64) -> bool {
        self.x.contains(xd) && self.y.contains(yd)
    }

    /// Polyline through data points (points outside the axes are dropped).
    pub fn polyline(
        &mut self,
        pts: &[(f64, f64)],
        color: RGBColor,
        width: u32,
        dashed: bool,
    ) -> anyhow::Result<()> {
        let p: Vec<(f64, f64)> = pts
            .iter()
            .filter(|(a, b)| self.contains(*a, *b))
            .map(|(a, b)| (self.x.to_plot(*a), self.y.to_plot(*b)))
            .collect();
        if p.len() < 2 {
            return Ok(());
        }
        let style = color.stroke_width(width);
        if dashed {
            self.chart
                .draw_series(DashedLineSeries::new(p, 9, 5, style))
                .map_err(pe)?;
        } else {
            self.chart
                .draw_series(LineSeries::new(p, style))
                .map_err(pe)?;
        }
        Ok(())
    }

    /// Draws a marker at a data point and reserves its area for labels.
    pub fn marker(&mut self, xd: f64, yd: f64, m: Marker, color: RGBColor) -> anyhow::Result<()> {
        if !self.contains(xd, yd) {
            return Ok(());
        }
        let c = self.px(xd, yd);
        self.placer.block(Rect::around(c, 6));
        draw_marker(self.root, c, m, color, 5)
    }

    /// Places a label near pixel `at` using the first free candidate offset;
    /// returns false (and draws nothing) when none is free.
    pub fn label(
        &mut self,
        at: (i32, i32),
        text: &str,
        size: f64,
        color: RGBColor,
        candidates: &[(i32, i32, Anchor)],
    ) -> anyhow::Result<bool> {
        match self.placer.place(at, text, size, candidates) {
            Some((pos, anchor)) => {
                draw_text(self.root, pos, text, size, color, anchor)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Horizontal reference line across the panel at data value `yd`,
    /// labelled above (or below) its right end when there is room.
    pub fn hline(
        &mut self,
        yd: f64,
        label: &str,
        color: RGBColor,
        dashed: bool,
        size: f64,
    ) -> anyhow::Result<bool> {
        if !self.y.contains(yd) {
            return Ok(false);
        }
        let pts = [(self.x.lo, yd), (self.x.hi, yd)];
        self.polyline(&pts, color, 2, dashed)?;
        let right = self.px(self.x.hi, yd);
        let left = self.px(self.x.lo, yd);
        let mid = ((left.0 + right.0) / 2, right.1);
        let d = (size / 2.0).ceil() as i32 + 4;
        let cands = [
            (-8, -d, Anchor::Right),
            (-8, d, Anchor::Right),
            (mid.0 - right.0, -d, Anchor::Center),
            (mid.0 - right.0, d, Anchor::Center),
            (left.0 - right.0 + 8, -d, Anchor::Left),
            (left.0 - right.0 + 8, d, Anchor::Left),
        ];
        self.label(right, label, size, color, &cands)
    }
}

/// What a legend entry shows before its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Glyph {
    /// A series: marker, optionally on a line sample.
    Series {
        marker: Option<Marker>,
        color: RGBColor,
        line: bool,
        dashed: bool,
    },
    /// A reference line (ceiling).
    Line { color: RGBColor, dashed: bool },
    /// An open ring.
    Ring(RGBColor),
    /// A bold heading, no glyph.
    Heading,
    /// Plain text, no glyph.
    Note,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    pub glyph: Glyph,
    pub text: String,
}

impl LegendEntry {
    pub fn new(glyph: Glyph, text: impl Into<String>) -> Self {
        LegendEntry {
            glyph,
            text: text.into(),
        }
    }
}

/// Splits text into lines that fit `width` pixels at `size`.
pub fn wrap(text: &str, size: f64, width: i32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let cand = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if !cur.is_empty() && text_width(&cand, size) > width {
            lines.push(std::mem::replace(&mut cur, word.to_string()));
        } else {
            cur = cand;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Draws the legend panel: entries top to bottom, glyph then (wrapped) text.
pub fn draw_legend(area: &Area<'_>, entries: &[LegendEntry], top: i32) -> anyhow::Result<()> {
    let (w, h) = area.dim_in_pixel();
    let text_x = 52;
    let text_w = w as i32 - text_x - 8;
    let line_h = (LEGEND_SIZE * 1.15).ceil() as i32;
    let mut y = top;
    for e in entries {
        let (size, color, x0, avail) = match e.glyph {
            Glyph::Heading => (LEGEND_SIZE + 1.0, TEXT, 8, w as i32 - 16),
            Glyph::Note => (LEGEND_SIZE - 1.0, MUTED, 8, w as i32 - 16),
            _ => (LEGEND_SIZE, TEXT, text_x, text_w),
        };
        let lines = wrap(&e.text, size, avail);
        if y + line_h > h as i32 {
            break;
        }
        if matches!(e.glyph, Glyph::Heading) {
            y += 6;
        }
        let gy = y + line_h / 2;
        match e.glyph {
            Glyph::Series {
                marker,
                color,
                line,
                dashed,
            } => {
                if line {
                    draw_line_px(area, (8, gy), (44, gy), color, 2, dashed)?;
                }
                if let Some(m) = marker {
                    draw_marker(area, (26, gy), m, color, 5)?;
                }
            }
            Glyph::Line { color, dashed } => {
                draw_line_px(area, (8, gy), (44, gy), color, 2, dashed)?;
            }
            Glyph::Ring(color) => draw_ring(area, (26, gy), 8, color)?,
            Glyph::Heading | Glyph::Note => {}
        }
        for (i, l) in lines.iter().enumerate() {
            draw_text(
                area,
                (x0, gy + i as i32 * line_h),
                l,
                size,
                color,
                Anchor::Left,
            )?;
        }
        y += line_h * lines.len().max(1) as i32 + 6;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_splits_long_text() {
        let lines = wrap("one two three four five six seven", 10.0, 60);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), "one two three four five six seven");
        assert_eq!(wrap("", 10.0, 60), Vec::<String>::new());
    }

    #[test]
    fn render_svg_writes_text_elements_without_fonts() {
        let svg = render_svg((400, 300), |root| {
            let x = Axis::fit(
                crate::plot::style::Scale::Log10,
                [1.0, 100.0],
                "x title",
                crate::plot::style::TickFormat::Number,
            );
            let y = x.clone();
            let mut f = Frame::new(root, root, "A & B <title>", x, y)?;
            f.marker(10.0, 10.0, Marker::Diamond, RGBColor(1, 2, 3))?;
            f.hline(20.0, "ref line", RGBColor(0, 0, 0), true, 12.0)?;
            Ok(())
        })
        .unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("<text"));
        assert!(svg.contains("A &amp; B &lt;title&gt;"));
        assert!(svg.contains("x title"));
        assert!(svg.contains("ref line"));
        assert!(svg.contains("<polygon"));
    }
}
