//! SVG charts (plotters, SVG backend only).
//!
//! Text needs no font files: plotters is built without `ttf`/`ab_glyph`, so
//! its built-in "naive" font only estimates text sizes for layout, and the
//! SVG backend writes titles, axis labels, tick labels and legend entries as
//! `<text font-family="sans-serif">` elements that the viewer renders.
//!
//! Every chart is rendered to a string first and then written with
//! [`crate::results::atomic::write_atomic`].

pub mod frame;
pub mod roofline;
pub mod style;
pub mod sweeps;

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::results::atomic::write_atomic;
use crate::results::schema::ResultsFile;

pub use roofline::{roofline_chart, roofline_svg};
pub use sweeps::{decode_svg, elementwise_svg, fusion_svg, llm_svg, square_svg};

pub const ROOFLINE_FILE: &str = "roofline.svg";
pub const SQUARE_FILE: &str = "square.svg";
pub const LLM_FILE: &str = "llm.svg";
pub const DECODE_FILE: &str = "decode.svg";
pub const ELEMENTWISE_FILE: &str = "elementwise.svg";
pub const FUSION_FILE: &str = "fusion.svg";

/// The sweep chart file an experiment gets, if any.
pub fn chart_file_for(experiment: &str) -> Option<&'static str> {
    match experiment {
        "square" => Some(SQUARE_FILE),
        "llm" => Some(LLM_FILE),
        "decode" => Some(DECODE_FILE),
        "elementwise" => Some(ELEMENTWISE_FILE),
        "fusion" => Some(FUSION_FILE),
        _ => None,
    }
}

/// Renders every chart that applies to `results`, as (file name, SVG text):
/// the roofline when there are records or ceilings, and one sweep chart per
/// experiment present (square, llm, decode, elementwise, fusion).
pub fn render_all(results: &ResultsFile) -> anyhow::Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    if !results.records.is_empty() || !results.run.ceilings.is_empty() {
        out.push((
            ROOFLINE_FILE,
            roofline_svg(results).context("roofline chart")?,
        ));
    }
    type Render = fn(&ResultsFile) -> anyhow::Result<Option<String>>;
    let sweeps: [(&'static str, Render); 5] = [
        (SQUARE_FILE, square_svg),
        (LLM_FILE, llm_svg),
        (DECODE_FILE, decode_svg),
        (ELEMENTWISE_FILE, elementwise_svg),
        (FUSION_FILE, fusion_svg),
    ];
    for (name, render) in sweeps {
        if let Some(svg) = render(results).with_context(|| format!("chart {name}"))? {
            out.push((name, svg));
        }
    }
    Ok(out)
}

/// Writes every chart that applies into `dir` (created if missing), each
/// atomically, and returns their paths (`dir` joined with the file name).
pub fn plot_all(results: &ResultsFile, dir: impl AsRef<Path>) -> anyhow::Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut paths = Vec::new();
    for (name, svg) in render_all(results)? {
        let path = dir.join(name);
        write_atomic(&path, svg.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::results::schema::tests::{fixture, fixture_with_llm};

    /// Minimal well-formedness check: starts with `<svg`, ends with `</svg>`,
    /// and every element opened is closed in order (self-closing allowed).
    pub(crate) fn assert_well_formed(svg: &str) {
        assert!(
            svg.trim_start().starts_with("<svg"),
            "does not start with <svg"
        );
        assert!(
            svg.trim_end().ends_with("</svg>"),
            "does not end with </svg>"
        );
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find('<') {
            rest = &rest[i + 1..];
            let end = rest.find('>').expect("unterminated tag");
            let tag = &rest[..end];
            rest = &rest[end + 1..];
            if tag.starts_with('?') || tag.starts_with('!') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().unwrap_or_else(|| panic!("stray </{name}>"));
                assert_eq!(open, name.trim(), "mismatched close tag");
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap_or("").to_string();
                stack.push(name);
            }
        }
        assert!(stack.is_empty(), "unclosed elements: {stack:?}");
        // no text content may hold a raw '&' that is not an entity
        for (i, _) in svg.match_indices('&') {
            let ent = &svg[i..(i + 6).min(svg.len())];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "raw & in SVG: {ent}"
            );
        }
    }

    /// Text of every `<text>` element, entities left as written.
    pub(crate) fn svg_texts(svg: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find("<text") {
            rest = &rest[i..];
            let open_end = rest.find('>').unwrap();
            let close = rest.find("</text>").unwrap();
            out.push(rest[open_end + 1..close].trim().to_string());
            rest = &rest[close..];
        }
        out
    }

    #[test]
    fn plot_all_writes_every_chart() {
        let dir = tempfile::tempdir().unwrap();
        let f = fixture_with_llm();
        let paths = plot_all(&f, dir.path().join("charts")).unwrap();
        let names: Vec<String> = paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                ROOFLINE_FILE,
                SQUARE_FILE,
                LLM_FILE,
                DECODE_FILE,
                ELEMENTWISE_FILE,
                FUSION_FILE
            ]
        );
        for p in &paths {
            let svg = std::fs::read_to_string(p).unwrap();
            assert_well_formed(&svg);
        }
    }

    #[test]
    fn plot_all_skips_absent_experiments() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = fixture();
        f.records.retain(|r| r.experiment == "square");
        let paths = plot_all(&f, dir.path()).unwrap();
        assert_eq!(paths.len(), 2);
        assert!(paths[1].ends_with(SQUARE_FILE));

        let empty = ResultsFile::default();
        assert!(plot_all(&empty, dir.path().join("empty"))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn chart_files_map_to_experiments() {
        assert_eq!(chart_file_for("decode"), Some(DECODE_FILE));
        assert_eq!(chart_file_for("llm"), Some(LLM_FILE));
        assert_eq!(chart_file_for("bench"), None);
    }
}
