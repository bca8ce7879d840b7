//! `roofline check`: the numerical check of every kernel and variant; non-zero exit on any
//! failure.

use crate::check::{self, CheckRow};
use crate::dtype::Dtype;
use crate::error::{usage, LabError};
use crate::gpu::Gpu;
use crate::measure::BenchCase;
use crate::registry::{self, Family};
use crate::results::schema::Shape;
use crate::user::plugin::Plugin;
use crate::user::{kernel, UserKernel, UserSource, UserSpec};
use anyhow::Result;
use clap::Args;
use comfy_table::Table;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Seeded random shapes per kernel family, on top of the fixed shapes
    #[arg(long, default_value_t = 20)]
    pub random: usize,
    /// Seed for the random shapes and inputs
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Families to check (default: all; `roofline list` names them)
    #[arg(long, value_delimiter = ',')]
    pub kernel: Vec<String>,
    /// Print every case, not only a summary per family and the failures
    #[arg(long)]
    pub verbose: bool,
    /// Check your kernel file instead of ours (its family: --kernel, or its launch block)
    #[arg(long, value_name = "FILE.cu")]
    pub kernel_file: Option<std::path::PathBuf>,
    /// The kernel to check when the file holds several
    #[arg(long, requires = "kernel_file")]
    pub symbol: Option<String>,
    /// Check your plugin instead of ours: a shared library exporting the launcher of the
    /// family given by --kernel
    #[arg(long, value_name = "LIB.so[:SYMBOL]", conflicts_with = "kernel_file")]
    pub plugin: Option<String>,
    /// Element type: fp16 (every family) or bf16 (the GEMM families' variants with a bf16
    /// form, which `roofline list` marks; without --kernel, all of them)
    #[arg(long, default_value = "fp16")]
    pub dtype: String,
}

/// The family a user's kernel is checked as: --kernel (one) or the file's launch block.
fn user_family(a: &CheckArgs, from_file: Option<&str>) -> Result<&'static Family> {
    match (a.kernel.as_slice(), from_file) {
        ([one], _) => registry::get(one, "--kernel "),
        ([], Some(f)) => registry::get(f, "the launch block's family "),
        ([], None) if a.plugin.is_some() => Err(usage("name the plugin's family: --kernel FAMILY")),
        ([], None) => Err(usage(
            "name the file's family: --kernel FAMILY, or `// roofline: family = ...` in the file",
        )),
        _ => Err(usage(
            "--kernel-file and --plugin check one family: give one --kernel",
        )),
    }
}

/// The user's file (parsed, checked against its family) or plugin (loaded), and its family.
fn user_spec(a: &CheckArgs) -> Result<Option<(UserSpec, &'static Family)>> {
    if let Some(p) = &a.plugin {
        let family = user_family(a, None)?;
        return Ok(Some((UserSpec::Plugin(Plugin::load(p, family)?), family)));
    }
    let Some(path) = &a.kernel_file else {
        return Ok(None);
    };
    let src = UserSource::load(path, a.symbol.as_deref())?;
    let family = user_family(a, src.family.as_deref())?;
    kernel::check_family(&src, family)?;
    Ok(Some((UserSpec::File(src), family)))
}

/// The user kernel's cases: the family's fixed check shapes (both GELU forms where the family
/// has them), then `random` seeded random shapes.
fn user_cases(
    f: &'static Family,
    k: &Arc<UserKernel>,
    random: usize,
    seed: u64,
) -> Vec<Box<dyn BenchCase>> {
    let forms: &[i32] = if f.takes_gelu { &[0, 1] } else { &[0] };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x05e7);
    let mut shapes: Vec<Shape> = (f.check_shapes)();
    shapes.extend((0..random).map(|_| (f.random_shape)(&mut rng)));
    let mut out = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        for &g in forms {
            out.push((f.user_case)(s, k.clone(), g, seed + i as u64));
        }
    }
    out
}

/// `check --kernel-file` / `--plugin`: the user's kernel at every check shape, verified like
/// ours.
fn run_user(device: usize, a: &CheckArgs, spec: UserSpec, family: &'static Family) -> Result<()> {
    let gpu = Gpu::open(device)?;
    let k = UserKernel::load(&gpu, spec, family)?;
    let mut rows = Vec::new();
    for mut c in user_cases(family, &k, a.random, a.seed) {
        let name = c.id().describe();
        // A fault ends the check (the context is gone): the rows so far are printed first.
        let v = match c.verify(&gpu) {
            Ok(v) => v,
            Err(e) => {
                println!("{}", render(&rows, a.verbose));
                let e = e.context(format!("while checking {name}"));
                crate::error::exit_now_if_hung(&e);
                return Err(e);
            }
        };
        rows.push(CheckRow {
            family: family.name,
            dtype: Dtype::F16,
            case: name,
            passed: v.passed,
            rel_err: v.rel_err,
            detail: v.detail,
        });
    }
    report(&rows, a.verbose)
}

/// The families to check in `dtype`: --kernel's (each must take the dtype), or every family
/// that takes it.
pub fn families(a: &CheckArgs, dtype: Dtype) -> Result<Vec<&'static Family>> {
    if a.kernel.is_empty() {
        return Ok(registry::ALL
            .iter()
            .copied()
            .filter(|f| f.takes(dtype))
            .collect());
    }
    a.kernel
        .iter()
        .map(|k| {
            let f = registry::get(k, "--kernel ")?;
            f.check_dtype(dtype, &[], Vec::new(), true)?;
            Ok(f)
        })
        .collect()
}

/// Runs the check in each of `dtypes` (a family only in those it takes) and returns its rows
/// (used by `report` too).
pub fn run_rows(
    gpu: &Gpu,
    fams: &[&'static Family],
    random: usize,
    seed: u64,
    dtypes: &[Dtype],
) -> Result<Vec<CheckRow>> {
    let total: usize = fams
        .iter()
        .flat_map(|f| {
            dtypes
                .iter()
                .map(move |&d| check::cases(f, random, seed, d).len())
        })
        .sum();
    let pb = ProgressBar::new(total as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {wide_msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    pb.set_prefix("check");
    let mut rows = Vec::new();
    for &d in dtypes {
        for f in fams.iter().filter(|f| f.takes(d)) {
            rows.extend(check::run_family(gpu, f, random, seed, d, &pb)?);
        }
    }
    pb.finish_and_clear();
    Ok(rows)
}

/// Summary per family plus every failure, as a table.
pub fn render(rows: &[CheckRow], verbose: bool) -> String {
    let mut t = Table::new();
    t.set_header(vec![
        "family",
        "cases",
        "passed",
        "worst rel err",
        "failures",
    ]);
    for f in check::summarize(rows) {
        t.add_row(vec![
            f.label(),
            f.cases.to_string(),
            f.passed.to_string(),
            format!("{:.2e}", f.worst_rel_err),
            if f.failed.is_empty() {
                "-".into()
            } else {
                f.failed.join(", ")
            },
        ]);
    }
    let mut out = t.to_string();
    let detail: Vec<&CheckRow> = rows.iter().filter(|r| verbose || !r.passed).collect();
    if !detail.is_empty() {
        let mut d = Table::new();
        d.set_header(vec!["case", "result", "detail"]);
        for r in detail {
            d.add_row(vec![
                r.case.clone(),
                if r.passed {
                    "ok".into()
                } else {
                    "FAILED".into()
                },
                r.detail.clone(),
            ]);
        }
        out += "\n";
        out += &d.to_string();
    }
    out
}

pub fn run(device: usize, a: &CheckArgs) -> Result<()> {
    let dtype = Dtype::parse(&a.dtype)?;
    if (a.kernel_file.is_some() || a.plugin.is_some()) && dtype != Dtype::F16 {
        return Err(usage(format!(
            "--dtype {dtype}: a user's kernel (--kernel-file, --plugin) is checked in fp16"
        )));
    }
    if let Some((spec, family)) = user_spec(a)? {
        return run_user(device, a, spec, family);
    }
    let fams = families(a, dtype)?;
    let gpu = Gpu::open(device)?;
    let rows = run_rows(&gpu, &fams, a.random, a.seed, &[dtype])?;
    report(&rows, a.verbose)
}

/// Prints the table and the closing count; a failed case is exit 1.
fn report(rows: &[CheckRow], verbose: bool) -> Result<()> {
    println!("{}", render(rows, verbose));
    let failed = rows.iter().filter(|r| !r.passed).count();
    println!("{} passed, {} failed", rows.len() - failed, failed);
    if failed > 0 {
        return Err(
            LabError::Verification(format!("{failed} of {} cases failed", rows.len())).into(),
        );
    }
    Ok(())
}
