//! The report's ceilings table: each measured ceiling beside its datasheet figure.

use crate::results::export::markdown_rows;
use crate::results::schema::{Ceiling, CeilingKind, ResultsFile};

use super::helpers::{pct, value_with_unit};

/// The datasheet ceiling a measured one is compared with, if present.
fn datasheet_for<'a>(results: &'a ResultsFile, c: &Ceiling) -> Option<&'a Ceiling> {
    let n = c.name.as_str();
    let mut cands: Vec<String> = vec![format!("datasheet_{n}")];
    if n.starts_with("hbm") {
        cands.push("datasheet_hbm".into());
    } else if n.starts_with("l2") {
        cands.push("datasheet_l2".into());
    } else if n.starts_with("tensor") {
        match ["fp16", "bf16", "fp8", "tf32", "int8"]
            .iter()
            .find(|d| n.contains(*d))
        {
            Some(d) => cands.push(format!("datasheet_tensor_{d}")),
            // dtype-less tensor ceilings (WMMA) come from the fp16 kernels
            None => cands.push("datasheet_tensor_fp16".into()),
        }
    } else if n.starts_with("fp32") {
        cands.push("datasheet_fp32".into());
    } else if n.starts_with("fp16") {
        cands.push("datasheet_fp16".into());
    }
    cands.iter().find_map(|name| {
        results
            .run
            .ceilings
            .iter()
            .find(|d| d.is_datasheet() && d.name == *name && d.kind == c.kind)
    })
}

pub(super) fn ceilings_table(results: &ResultsFile) -> String {
    let mut rows = Vec::new();
    let mut paired: Vec<&str> = Vec::new();
    for c in results.run.ceilings.iter().filter(|c| !c.is_datasheet()) {
        let ds = datasheet_for(results, c);
        if let Some(d) = ds {
            paired.push(&d.name);
        }
        rows.push(vec![
            c.label.clone(),
            format!("`{}`", c.name),
            c.kind.to_string(),
            value_with_unit(c),
            ds.map_or("—".into(), value_with_unit),
            ds.map_or("—".into(), |d| pct(c.value, d.value)),
        ]);
    }
    for d in results
        .run
        .ceilings
        .iter()
        .filter(|c| c.is_datasheet() && !paired.contains(&c.name.as_str()))
    {
        rows.push(vec![
            d.label.clone(),
            format!("`{}`", d.name),
            d.kind.to_string(),
            "—".into(),
            value_with_unit(d),
            "—".into(),
        ]);
    }
    markdown_rows(
        &[
            "Ceiling",
            "id",
            "kind",
            "measured",
            "datasheet",
            "% of datasheet",
        ],
        &[false, false, false, true, true, true],
        &rows,
    )
}

pub(super) fn launch_floor<'a>(results: &'a ResultsFile, timing: &str) -> Option<&'a Ceiling> {
    let name = if timing == "graph" {
        "launch_floor_graph"
    } else {
        "launch_floor_single"
    };
    results
        .ceiling(name)
        .filter(|c| c.kind == CeilingKind::Latency && c.value > 0.0)
}
