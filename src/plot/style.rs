//! Shared chart style: colors, markers, axes (scales, ticks, tick labels) and
//! a greedy label placer that keeps text from overlapping.
//!
//! Text needs no font: plotters is built without `ttf`/`ab_glyph`, so its
//! "naive" font backend only estimates text extents, and the SVG backend
//! writes every string as a `<text>` element (font-family "sans-serif") that
//! the viewer lays out. The estimates below are only used for placement.

use plotters::style::RGBColor;

use crate::results::schema::{format_bytes, is_library_impl};

/// Font family written into the SVG; every viewer has one.
pub const FONT: &str = "sans-serif";
pub const TITLE_SIZE: f64 = 26.0;
pub const AXIS_TITLE_SIZE: f64 = 18.0;
pub const TICK_SIZE: f64 = 15.0;
pub const LABEL_SIZE: f64 = 14.0;
pub const POINT_LABEL_SIZE: f64 = 12.0;
pub const LEGEND_SIZE: f64 = 15.0;

pub const TEXT: RGBColor = RGBColor(30, 30, 30);
pub const MUTED: RGBColor = RGBColor(110, 110, 110);
pub const GRID_BOLD: RGBColor = RGBColor(205, 205, 205);
pub const GRID_LIGHT: RGBColor = RGBColor(236, 236, 236);

/// Blues/greens for our kernels.
pub const OURS_PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(23, 190, 207),
    RGBColor(148, 103, 189),
    RGBColor(0, 70, 140),
    RGBColor(120, 160, 30),
    RGBColor(0, 128, 128),
    RGBColor(100, 100, 220),
    RGBColor(0, 110, 60),
    RGBColor(70, 180, 140),
    RGBColor(90, 40, 140),
    RGBColor(60, 150, 230),
];

pub const LIBRARY_PALETTE: [RGBColor; 4] = [
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];
/// Memory ceilings.
pub const MEMORY_PALETTE: [RGBColor; 4] = [
    RGBColor(0, 128, 110),
    RGBColor(60, 160, 90),
    RGBColor(0, 150, 200),
    RGBColor(90, 110, 40),
];
/// Compute ceilings.
pub const COMPUTE_PALETTE: [RGBColor; 5] = [
    RGBColor(150, 60, 0),
    RGBColor(170, 40, 120),
    RGBColor(110, 60, 170),
    RGBColor(190, 120, 0),
    RGBColor(90, 90, 90),
];
/// Datasheet ceilings are drawn dashed in gray.
pub const DATASHEET: RGBColor = RGBColor(140, 140, 140);

/// Point marker shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
    Cross,
}

/// Marker per implementation id: ours ●, cuBLAS ▲, cuBLASLt ◆, unfused ■,
/// unfused with cuBLAS ✕.
pub fn marker_for_impl(impl_: &str) -> Marker {
    match impl_ {
        "cublas" => Marker::Triangle,
        "cublaslt" => Marker::Diamond,
        "unfused" => Marker::Square,
        "unfused_cublas" => Marker::Cross,
        _ => Marker::Circle,
    }
}

/// Assigns colors to series in order: our series walk [`OURS_PALETTE`],
/// library series [`LIBRARY_PALETTE`], so cuBLAS is always warm-colored.
#[derive(Default)]
pub struct ColorCycle {
    ours: usize,
    library: usize,
}

impl ColorCycle {
    pub fn next_for(&mut self, impl_: &str) -> RGBColor {
        if is_library_impl(impl_) || impl_ == "unfused_cublas" {
            let c = LIBRARY_PALETTE[self.library % LIBRARY_PALETTE.len()];
            self.library += 1;
            c
        } else {
            let c = OURS_PALETTE[self.ours % OURS_PALETTE.len()];
            self.ours += 1;
            c
        }
    }
}

/// Estimated width in pixels of `text` at plotters font size `size`.
/// The SVG backend writes `font-size = size / 1.24`; an average sans-serif
/// glyph is about 0.55 em wide, so 0.5 × size per character is generous.
pub fn text_width(text: &str, size: f64) -> i32 {
    (0.5 * size * text.chars().count() as f64).ceil() as i32
}

/// Estimated text height in pixels at plotters font size `size`.
pub fn text_height(size: f64) -> i32 {
    size.ceil() as i32
}

// ---------------------------------------------------------------- axes

/// How data values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear,
    Log10,
    Log2,
}

/// How tick values are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TickFormat {
    /// 0.01, 0.5, 1, 250, 4096, 1e6
    Number,
    /// 4 MiB, 1 GiB
    Bytes,
}

/// An axis: scale, data range (in data units) and title. Charts are drawn
/// in "plot units" (log10/log2 of the data for log scales) so that all
/// geometry, clipping included, is linear.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    pub title: String,
    pub format: TickFormat,
}

impl Axis {
    /// An axis spanning the given data values with some headroom. Log axes
    /// ignore non-positive values; linear axes start at 0 when all values
    /// are non-negative.
    pub fn fit(
        scale: Scale,
        values: impl IntoIterator<Item = f64>,
        title: &str,
        format: TickFormat,
    ) -> Axis {
        let vals: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0))
            .collect();
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = match scale {
            _ if vals.is_empty() => match scale {
                Scale::Linear => (0.0, 1.0),
                _ => (1.0, 1000.0),
            },
            Scale::Linear => {
                let lo = if min >= 0.0 { 0.0 } else { min * 1.1 };
                let hi = if max > lo { max * 1.12 } else { lo + 1.0 };
                (lo, hi)
            }
            Scale::Log10 | Scale::Log2 => {
                let (lo, hi) = (min / 1.6, max * 1.6);
                if hi / lo < 10.0 {
                    let mid = (lo * hi).sqrt();
                    (mid / 3.2, mid * 3.2)
                } else {
                    (lo, hi)
                }
            }
        };
        Axis {
            scale,
            lo,
            hi,
            title: title.to_string(),
            format,
        }
    }

    /// Data value → plot units.
    pub fn to_plot(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log10 => v.log10(),
            Scale::Log2 => v.log2(),
        }
    }

    /// Plot units → data value.
    pub fn from_plot(&self, p: f64) -> f64 {
        match self.scale {
            Scale::Linear => p,
            Scale::Log10 => 10f64.powf(p),
            Scale::Log2 => 2f64.powf(p),
        }
    }

    /// The axis range in plot units.
    pub fn plot_range(&self) -> std::ops::Range<f64> {
        self.to_plot(self.lo)..self.to_plot(self.hi)
    }

    /// True when `v` (data units) lies within the axis.
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.lo && v <= self.hi && (self.scale == Scale::Linear || v > 0.0)
    }

    /// (bold, light) tick positions in plot units.
    pub fn ticks(&self) -> (Vec<f64>, Vec<f64>) {
        let r = self.plot_range();
        let (a, b) = (r.start, r.end);
        match self.scale {
            Scale::Linear => {
                let step = nice_step((b - a) / 8.0);
                let mut bold = Vec::new();
                let mut light = Vec::new();
                let mut i = (a / step).ceil() as i64;
                while (i as f64) * step <= b + 1e-9 * step {
                    bold.push(clean(i as f64 * step));
                    let half = (i as f64 + 0.5) * step;
                    if half <= b {
                        light.push(half);
                    }
                    i += 1;
                }
                (bold, light)
            }
            Scale::Log10 => {
                let mut bold: Vec<f64> = (a.ceil() as i64..=b.floor() as i64)
                    .map(|e| e as f64)
                    .collect();
                let mut light = Vec::new();
                for e in (a.floor() as i64)..=(b.ceil() as i64) {
                    for d in 2..=9 {
                        let p = e as f64 + (d as f64).log10();
                        if p >= a && p <= b {
                            light.push(p);
                        }
                    }
                }
                if bold.len() < 3 {
                    // At most two decade marks visible: label 2× and 5× too.
                    for e in (a.floor() as i64)..=(b.ceil() as i64) {
                        for d in [2.0f64, 5.0] {
                            let p = e as f64 + d.log10();
                            if p >= a && p <= b {
                                bold.push(p);
                            }
                        }
                    }
                    bold.sort_by(f64::total_cmp);
                    light.retain(|p| !bold.iter().any(|b| (b - p).abs() < 1e-9));
                }
                (bold, light)
            }
            Scale::Log2 => {
                let all: Vec<i64> = (a.ceil() as i64..=b.floor() as i64).collect();
                let step = (all.len() as f64 / 9.0).ceil().max(1.0) as i64;
                let mut bold = Vec::new();
                let mut light = Vec::new();
                for e in all {
                    if e.rem_euclid(step) == 0 {
                        bold.push(e as f64);
                    } else {
                        light.push(e as f64);
                    }
                }
                (bold, light)
            }
        }
    }

    /// Tick label for a position in plot units.
    pub fn tick_label(&self, p: f64) -> String {
        let v = clean(self.from_plot(p));
        match self.format {
            TickFormat::Number => fmt_tick(v),
            TickFormat::Bytes => fmt_bytes_tick(v),
        }
    }
}

/// Rounds away float noise (e.g. 0.30000000000000004 → 0.3).
fn clean(v: f64) -> f64 {
    format!("{v:.9e}").parse().unwrap_or(v)
}

/// 1, 2, 2.5 or 5 × a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 2.5 {
        2.5
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Tick number: plain decimal between 0.001 and 99999, else scientific.
pub fn fmt_tick(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:e}");
        s.replace("e-0", "e-")
    } else {
        format!("{}", clean(v))
    }
}

/// Tick byte count: "4 MiB", "1.5 GiB", "512 B".
pub fn fmt_bytes_tick(v: f64) -> String {
    let s = format_bytes(v.round());
    s.replace(".0 ", " ")
}

// ---------------------------------------------------------------- placement

/// Pixel rectangle: x0, y0, x1, y1 (x0 <= x1, y0 <= y1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl Rect {
    pub fn new(x0: i32, y0: i32, x1: i32, y1: i32) -> Rect {
        Rect {
            x0: x0.min(x1),
            y0: y0.min(y1),
            x1: x0.max(x1),
            y1: y0.max(y1),
        }
    }

    pub fn around(c: (i32, i32), r: i32) -> Rect {
        Rect::new(c.0 - r, c.1 - r, c.0 + r, c.1 + r)
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    pub fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }
}

/// Horizontal anchor of a text label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Left,
    Center,
    Right,
}

/// Greedy placer: a label is placed at the first candidate position whose
/// box stays inside the bounds and overlaps nothing placed before;
/// otherwise it is dropped (that is how crowded point labels are thinned).
#[derive(Clone, Debug)]
pub struct Placer {
    pub bounds: Rect,
    pub taken: Vec<Rect>,
}

impl Placer {
    pub fn new(bounds: Rect) -> Placer {
        Placer {
            bounds,
            taken: Vec::new(),
        }
    }

    /// Marks an area (a marker, a legend) as occupied.
    pub fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    /// Box of a label anchored at `pos` (vertically centered).
    pub fn label_box(pos: (i32, i32), text: &str, size: f64, anchor: Anchor) -> Rect {
        let w = text_width(text, size);
        let h = text_height(size);
        let x0 = match anchor {
            Anchor::Left => pos.0,
            Anchor::Center => pos.0 - w / 2,
            Anchor::Right => pos.0 - w,
        };
        Rect::new(x0, pos.1 - h / 2, x0 + w, pos.1 + h / 2)
    }

    /// Tries `candidates` (pixel offsets from `at`, with an anchor) in order;
    /// returns the chosen position and anchor, and reserves its box.
    pub fn place(
        &mut self,
        at: (i32, i32),
        text: &str,
        size: f64,
        candidates: &[(i32, i32, Anchor)],
    ) -> Option<((i32, i32), Anchor)> {
        for &(dx, dy, anchor) in candidates {
            let pos = (at.0 + dx, at.1 + dy);
            let b = Self::label_box(pos, text, size, anchor);
            if b.inside(&self.bounds) && !self.taken.iter().any(|t| t.overlaps(&b)) {
                self.taken.push(b);
                return Some((pos, anchor));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log10_ticks_are_decades() {
        let a = Axis::fit(Scale::Log10, [0.25, 2730.0], "AI", TickFormat::Number);
        let (bold, light) = a.ticks();
        let labels: Vec<String> = bold.iter().map(|p| a.tick_label(*p)).collect();
        assert_eq!(labels, ["1", "10", "100", "1000"]);
        assert!(light.len() > 10);
        let a = Axis::fit(Scale::Log10, [0.01, 0.5], "y", TickFormat::Number);
        let labels: Vec<String> = a.ticks().0.iter().map(|p| a.tick_label(*p)).collect();
        assert!(labels.contains(&"0.01".to_string()) && labels.contains(&"0.1".to_string()));
    }

    #[test]
    fn narrow_log_range_gets_intermediate_ticks() {
        let a = Axis::fit(Scale::Log10, [30.0, 40.0], "y", TickFormat::Number);
        let labels: Vec<String> = a.ticks().0.iter().map(|p| a.tick_label(*p)).collect();
        assert!(labels.len() >= 2, "{labels:?}");
    }

    #[test]
    fn log2_ticks_are_thinned() {
        let a = Axis::fit(Scale::Log2, [1.0, 1048576.0], "M", TickFormat::Number);
        let (bold, light) = a.ticks();
        assert!(bold.len() <= 10 && !light.is_empty());
        let a = Axis::fit(
            Scale::Log2,
            [4194304.0, 2147483648.0],
            "bytes",
            TickFormat::Bytes,
        );
        let labels: Vec<String> = a.ticks().0.iter().map(|p| a.tick_label(*p)).collect();
        assert!(labels.contains(&"1 GiB".to_string()), "{labels:?}");
    }

    #[test]
    fn linear_ticks_are_nice() {
        let a = Axis::fit(Scale::Linear, [0.0, 689.0], "TFLOP/s", TickFormat::Number);
        assert_eq!(a.lo, 0.0);
        let labels: Vec<String> = a.ticks().0.iter().map(|p| a.tick_label(*p)).collect();
        assert_eq!(labels[..3], ["0", "100", "200"]);
    }

    #[test]
    fn tick_formats() {
        assert_eq!(fmt_tick(0.1), "0.1");
        assert_eq!(fmt_tick(10000.0), "10000");
        assert_eq!(fmt_tick(1e6), "1e6");
        assert_eq!(fmt_tick(1e-4), "1e-4");
        assert_eq!(fmt_bytes_tick(16777216.0), "16 MiB");
        assert_eq!(fmt_bytes_tick(1.5 * 1073741824.0), "1.5 GiB");
    }

    #[test]
    fn placer_avoids_overlap_and_bounds() {
        let mut p = Placer::new(Rect::new(0, 0, 200, 100));
        let c = [
            (6, 0, Anchor::Left),
            (-6, 0, Anchor::Right),
            (0, -14, Anchor::Center),
        ];
        assert_eq!(
            p.place((50, 50), "abcdef", 12.0, &c),
            Some(((56, 50), Anchor::Left))
        );
        assert_eq!(
            p.place((50, 50), "abcdef", 12.0, &c),
            Some(((44, 50), Anchor::Right))
        );
        assert!(p.place((50, 50), "abcdef", 12.0, &c).is_some());
        assert!(p.place((50, 50), "abcdef", 12.0, &c).is_none());
        assert!(p
            .place((195, 5), "far too long a label", 12.0, &c)
            .is_none());
    }

    #[test]
    fn colors_separate_ours_and_library() {
        let mut cc = ColorCycle::default();
        let a = cc.next_for("ours");
        let b = cc.next_for("cublas");
        let c = cc.next_for("ours");
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(LIBRARY_PALETTE.contains(&b));
        assert_eq!(marker_for_impl("cublas"), Marker::Triangle);
    }
}
