//! `roofline list [--json]`: every registered kernel family, its variants, references and
//! what "best" runs where. Needs no GPU (the variant tables are compiled into the binary).

use crate::dtype::Dtype;
use crate::registry::{self, Family};
use anyhow::Result;
use clap::Args;
use comfy_table::Table;
use serde::Serialize;
use std::io::Write;

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct VariantOut {
    id: u32,
    name: String,
    summary: String,
    /// The element types it runs in (`--dtype`): "fp16", and "bf16" where it has a bf16 form.
    dtypes: Vec<&'static str>,
}

#[derive(Serialize)]
struct DispatchOut {
    shapes: &'static str,
    runs: &'static str,
    why: &'static str,
}

#[derive(Serialize)]
struct CheckShapeOut {
    label: String,
    /// The bench flags for this shape.
    flags: String,
    /// The work model's bytes at this shape.
    bytes: f64,
}

#[derive(Serialize)]
struct FamilyOut {
    name: &'static str,
    aliases: &'static [&'static str],
    summary: &'static str,
    shape_flags: &'static [&'static str],
    default_shape: String,
    references: &'static [&'static str],
    tolerance_rel_fro: f64,
    impls: &'static [&'static str],
    default_impls: &'static [&'static str],
    our_impls: Vec<&'static str>,
    /// The parameter list of a user's kernel for this family (--kernel-file).
    user_signature: String,
    /// The variables its launch block may use.
    user_launch_vars: Vec<&'static str>,
    /// The C prototype a plugin's launcher has (--plugin): the family's own launcher's.
    plugin_launcher: &'static str,
    /// What the tool passes besides the kernel's arguments.
    plugin_call: &'static str,
    best: String,
    /// The element types the family takes (`--dtype`).
    dtypes: Vec<&'static str>,
    /// The `--impl` choices that run in bf16 (empty: fp16 only).
    bf16_impls: &'static [&'static str],
    dispatch: Vec<DispatchOut>,
    sweeps: &'static [&'static str],
    variants: Vec<VariantOut>,
    check_shapes: Vec<CheckShapeOut>,
}

fn describe(f: &Family) -> FamilyOut {
    FamilyOut {
        name: f.name,
        aliases: f.aliases,
        summary: f.summary,
        shape_flags: f.shape.flags(),
        default_shape: f.shape.default_shape().label(),
        references: f.references,
        tolerance_rel_fro: f.tolerance.rel_fro,
        impls: f.impls,
        default_impls: f.default_impls,
        our_impls: f.our_impls(),
        user_signature: crate::user::signature::c_signature(f.user_params),
        user_launch_vars: crate::user::geometry::shape_vars(&f.shape.default_shape())
            .into_iter()
            .map(|(v, _)| v)
            .collect(),
        plugin_launcher: f.plugin.prototype,
        plugin_call: if f.plugin.workspace_at.is_some() {
            "variant 0, workspace NULL and its stream"
        } else {
            "variant 0 and its stream"
        },
        best: format!("v{}", (f.best)()),
        dtypes: Dtype::ALL
            .into_iter()
            .filter(|&d| f.takes(d))
            .map(|d| d.name())
            .collect(),
        bf16_impls: f.bf16.map_or(&[], |b| b.impls),
        dispatch: f
            .dispatch
            .iter()
            .map(|d| DispatchOut {
                shapes: d.shapes,
                runs: d.runs,
                why: d.why,
            })
            .collect(),
        sweeps: f.sweeps,
        check_shapes: (f.check_shapes)()
            .iter()
            .map(|s| CheckShapeOut {
                label: s.label(),
                flags: registry::shape_flags(s),
                bytes: (f.work)(s).bytes,
            })
            .collect(),
        variants: (f.variants)()
            .into_iter()
            .map(|(id, name)| {
                // The C tables' names start with their own number ("v3: ...", "v3 ...").
                let summary = name
                    .strip_prefix(&format!("v{id}"))
                    .map_or(name.as_str(), |s| s.trim_start_matches(':').trim_start())
                    .to_string();
                VariantOut {
                    id,
                    name: format!("v{id}"),
                    summary,
                    dtypes: Dtype::ALL
                        .into_iter()
                        .filter(|&d| f.variants_in(d).contains(&id))
                        .map(|d| d.name())
                        .collect(),
                }
            })
            .collect(),
    }
}

fn render(f: &FamilyOut) -> String {
    let mut out = format!("{}: {}\n", f.name, f.summary);
    if !f.aliases.is_empty() {
        out += &format!("  also accepted by bench as: {}\n", f.aliases.join(", "));
    }
    out += &format!(
        "  shape: {} (default {})\n  references: {}\n  impls: {} (default {})\n",
        f.shape_flags.join(" "),
        f.default_shape,
        f.references.join("; "),
        f.impls.join(", "),
        f.default_impls.join(", ")
    );
    if !f.sweeps.is_empty() {
        out += &format!("  sweeps: {}\n", f.sweeps.join(", "));
    }
    out += &format!(
        "  your kernel (--kernel-file): extern \"C\" __global__ void NAME{}; launch block \
         variables: {}\n",
        f.user_signature,
        f.user_launch_vars.join(" ")
    );
    out += &format!(
        "  your launcher (--plugin LIB.so[:SYMBOL]): extern \"C\" {}; the tool passes {}\n",
        f.plugin_launcher, f.plugin_call
    );
    if f.dtypes.len() > 1 {
        let with: Vec<&str> = f
            .variants
            .iter()
            .filter(|v| v.dtypes.contains(&"bf16"))
            .map(|v| v.name.as_str())
            .collect();
        out += &format!(
            "  dtypes: fp16 (every variant); bf16 (--dtype bf16): {} (impls: {})\n",
            with.join(", "),
            f.bf16_impls.join(", ")
        );
    }
    out += &format!("  best = {}:\n", f.best);
    for d in &f.dispatch {
        out += &format!("    {}: {} ({})\n", d.shapes, d.runs, d.why);
    }
    let mut t = Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    for v in &f.variants {
        // A variant with forms in more dtypes than fp16 says so after its summary.
        let summary = if v.dtypes.len() > 1 {
            format!("{} [{}]", v.summary, v.dtypes.join(", "))
        } else {
            v.summary.clone()
        };
        t.add_row(vec![format!("    {}", v.name), summary]);
    }
    out += &format!("  variants:\n{t}\n");
    out
}

pub fn run(a: &ListArgs) -> Result<()> {
    let fams: Vec<FamilyOut> = registry::ALL.iter().map(|f| describe(f)).collect();
    let text = if a.json {
        serde_json::to_string_pretty(&fams)? + "\n"
    } else {
        let mut t: String = fams.iter().map(|f| render(f) + "\n").collect();
        t += "bench any of them: roofline bench <family> [shape flags] [--impl ...] [--variant ...]\n";
        t
    };
    // `roofline list | head` closes the pipe early: that is not an error.
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
