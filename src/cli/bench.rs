//! `roofline bench <kernel>`: verify, time and place one kernel (and its references).

use super::args::{parse_size, MeasureArgs, OutputArgs};
use super::output::emit;
use crate::error::usage;
use crate::gpu::Gpu;
use crate::kernels::copy::{CopyCase, ReadCase};
use crate::kernels::cublas_gemm::{CublasGemmCase, Dtype};
use crate::kernels::elementwise::{self, ElementwiseCase, Op};
use crate::kernels::gemm::{self, HgemmCase};
use crate::kernels::gemm_gelu::{self, GeluImpl, GemmGeluCase};
use crate::kernels::gemv::{self, GemvCase, GemvImpl};
use crate::kernels::layernorm::{self, LayerNormCase};
use crate::kernels::variants;
use crate::measure::BenchCase;
use crate::results::schema::{Record, Shape};
use crate::roofline::probe;
use crate::session::Session;
use anyhow::Result;
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub kernel: BenchKernel,
}

#[derive(Subcommand, Debug)]
pub enum BenchKernel {
    /// Device-to-device copy (the HBM ceiling's kernel)
    Copy {
        /// Bytes to copy, e.g. 1GiB
        #[arg(long, allow_negative_numbers = true, value_parser = parse_size, default_value = "1GiB")]
        bytes: u64,
        /// Kernel variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Tensor Core HGEMM C = A.B (row-major fp16): ours (WMMA) and cuBLAS
    Gemm {
        #[command(flatten)]
        shape: GemmShape,
        /// Implementations: wmma (ours), cublas
        #[arg(long, value_delimiter = ',', default_value = "wmma,cublas")]
        r#impl: Vec<String>,
        /// Our variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// GEMM + bias + GELU: fused, unfused (ours + separate kernel), plain (our GEMM alone),
    /// unfused_cublas, cublaslt
    GemmGelu {
        #[command(flatten)]
        shape: GemmShape,
        /// Implementations: fused, unfused, plain (our GEMM without the epilogue: what the
        /// fusion costs), unfused_cublas, cublaslt
        #[arg(long, value_delimiter = ',', default_value = "fused,unfused,cublaslt")]
        r#impl: Vec<String>,
        /// Our variant(s) for fused/unfused/plain: v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        /// GELU form: tanh (approximation, as cuBLASLt) or erf
        #[arg(long, default_value = "tanh")]
        gelu: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Decode GEMV / small-M GEMM y = x.W: ours and cuBLAS
    Gemv {
        #[command(flatten)]
        shape: GemvShape,
        /// Implementations: ours, cublas, read (a plain read of W's bytes: the floor no GEMV
        /// can beat; with --interleave the GEMVs are timed interleaved with it)
        #[arg(long, value_delimiter = ',', default_value = "ours,cublas")]
        r#impl: Vec<String>,
        /// Our variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// ReLU over fp16 elements
    Relu {
        #[command(flatten)]
        elems: ElemsArg,
        /// Variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// GELU over fp16 elements
    Gelu {
        #[command(flatten)]
        elems: ElemsArg,
        /// Variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        /// GELU form: tanh or erf
        #[arg(long, default_value = "tanh")]
        gelu: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// LayerNorm forward over rows (fp16, fp32 statistics)
    Layernorm {
        /// Rows
        #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "32768")]
        rows: u64,
        /// Hidden size (row length)
        #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
        hidden: u64,
        /// Variant(s): v1, v2, ..., best, or all
        #[arg(long, default_value = "best")]
        variant: String,
        #[command(flatten)]
        measure: MeasureArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Args, Debug, Clone)]
pub struct GemvShape {
    /// Batch rows of x and y (decode batch)
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "1")]
    pub m: u64,
    /// Columns of W and y
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
    pub n: u64,
    /// Columns of x, rows of W
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
    pub k: u64,
}

#[derive(Args, Debug, Clone)]
pub struct ElemsArg {
    /// Number of fp16 elements
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "536870912")]
    pub elems: u64,
}

#[derive(Args, Debug, Clone)]
pub struct GemmShape {
    /// Rows of A and C
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
    pub m: u64,
    /// Columns of B and C
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
    pub n: u64,
    /// Columns of A, rows of B
    #[arg(long, allow_negative_numbers = true, value_parser = super::args::parse_dim, default_value = "4096")]
    pub k: u64,
}

/// "v3", "best" or "all" against a family's variants.
pub fn pick_variants(
    spec: &str,
    available: &[(u32, String)],
    best: u32,
    family: &str,
) -> Result<Vec<u32>> {
    if spec == "all" {
        return Ok(available.iter().map(|(v, _)| *v).collect());
    }
    spec.split(',')
        .map(|s| variants::parse(s.trim(), available, best, family).map_err(usage))
        .collect()
}

/// Which side of a comparison an `--impl` entry names.
enum Side {
    Ours,
    Library,
}

/// `--impl` entries, in order, for kernels compared with one library: `ours` lists the names
/// of our implementation (the first is the one the error message offers).
fn ours_or_library(impls: &[String], ours: &[&str], library: &str) -> Result<Vec<Side>> {
    impls
        .iter()
        .map(|imp| match imp.as_str() {
            i if ours.contains(&i) => Ok(Side::Ours),
            i if i == library => Ok(Side::Library),
            other => Err(usage(format!(
                "--impl '{other}': choose from {}, {library}",
                ours[0]
            ))),
        })
        .collect()
}

pub fn parse_gelu(s: &str) -> Result<i32> {
    match s {
        "tanh" => Ok(0),
        "erf" => Ok(1),
        _ => Err(usage(format!("--gelu '{s}': choose tanh or erf"))),
    }
}

/// Prints each record's speed relative to the library record of the same shape/cache/timing.
pub fn print_relative(records: &[Record], library_impl: &str) {
    for r in records.iter().filter(|r| r.impl_ != library_impl) {
        if let Some(lib) = records.iter().find(|l| {
            l.impl_ == library_impl
                && l.shape == r.shape
                && l.cache == r.cache
                && l.timing == r.timing
        }) {
            eprintln!(
                "{} {} {}: {:.2}x the speed of {} ({:.1} vs {:.1} TFLOP/s)",
                r.kernel,
                r.impl_label(),
                r.shape.label(),
                lib.median_ms / r.median_ms,
                library_impl,
                r.tflops,
                lib.tflops
            );
        }
    }
}

/// "KERNEL IMPL SHAPE: 1.234x the time of BASE (a vs b us)": one record's median over another's.
fn time_over(r: &Record, base: &Record, base_name: &str) -> String {
    format!(
        "{} {} {}: {:.3}x the time of {base_name} ({:.2} vs {:.2} us)",
        r.kernel,
        r.impl_label(),
        r.shape.label(),
        r.median_ms / base.median_ms,
        r.median_ms * 1e3,
        base.median_ms * 1e3
    )
}

/// Prints each GEMV record's time over the read of its weights (a `read` record of the same
/// cache and timing, as `bench gemv --impl read` makes): the decode targets' ratio.
pub fn print_vs_read(records: &[Record]) {
    for r in records.iter().filter(|r| r.kernel == "gemv") {
        let Shape::Gemm { n, k, .. } = r.shape else {
            continue;
        };
        if let Some(read) = records.iter().find(|l| {
            l.kernel == "read"
                // ReadCase reads whole 16-byte words: W's bytes rounded down
                && l.shape == (Shape::Bytes { bytes: 2 * n * k / 16 * 16 })
                && l.cache == r.cache
                && l.timing == r.timing
        }) {
            eprintln!("{}", time_over(r, read, "a read of W"));
        }
    }
}

/// Prints each of our GEMM+GELU records' time over our plain GEMM of the same variant, shape,
/// cache and timing (as `bench gemm-gelu --impl plain` adds): what the epilogue costs.
pub fn print_vs_plain(records: &[Record]) {
    for r in records
        .iter()
        .filter(|r| r.kernel == "gemm_bias_gelu" && (r.impl_ == "ours" || r.impl_ == "unfused"))
    {
        if let Some(plain) = records.iter().find(|l| {
            l.kernel == "hgemm"
                && l.impl_ == "ours"
                && l.variant == r.variant
                && l.shape == r.shape
                && l.cache == r.cache
                && l.timing == r.timing
        }) {
            eprintln!("{}", time_over(r, plain, "our plain GEMM"));
        }
    }
}

/// Opens the GPU and the ceilings used to place results.
pub fn open_session(device: usize) -> Result<Session> {
    let gpu = Gpu::open(device)?;
    let ceilings = probe::load_or_measure(&gpu, false, false)?;
    Ok(Session::new(gpu, ceilings))
}

/// Exit non-zero when any verification failed, or with 130 after Ctrl-C (called once the
/// results were written, so an interrupted run still leaves what it measured).
pub fn finish(session: &Session) -> Result<()> {
    let failed = session.failures();
    if !failed.is_empty() {
        let names: Vec<String> = failed.iter().map(|r| r.key().to_string()).collect();
        return Err(crate::error::LabError::Verification(names.join("; ")).into());
    }
    if session.is_interrupted() {
        return Err(crate::error::LabError::Interrupted(format!(
            "kept the {} record(s) measured before Ctrl-C",
            session.records.len()
        ))
        .into());
    }
    Ok(())
}

pub fn run(device: usize, a: &BenchArgs) -> Result<()> {
    // Everything is validated (flags, output path, variants, impls) before the GPU opens.
    let (measure, output) = a.kernel.common();
    let cfg = measure.config()?;
    output.validate()?;
    let (cases, library) = a.kernel.cases()?;
    run_cases(
        device,
        cases,
        &cfg,
        !measure.no_verify,
        measure.interleave,
        output,
        library,
    )
}

impl BenchKernel {
    fn common(&self) -> (&MeasureArgs, &OutputArgs) {
        match self {
            BenchKernel::Copy {
                measure, output, ..
            }
            | BenchKernel::Gemm {
                measure, output, ..
            }
            | BenchKernel::GemmGelu {
                measure, output, ..
            }
            | BenchKernel::Gemv {
                measure, output, ..
            }
            | BenchKernel::Relu {
                measure, output, ..
            }
            | BenchKernel::Gelu {
                measure, output, ..
            }
            | BenchKernel::Layernorm {
                measure, output, ..
            } => (measure, output),
        }
    }

    /// The cases to run and the library implementation the others are compared with.
    fn cases(&self) -> Result<(Vec<Box<dyn BenchCase>>, &'static str)> {
        let seed = self.common().0.seed;
        let mut cases: Vec<Box<dyn BenchCase>> = Vec::new();
        let library = match self {
            BenchKernel::Copy { bytes, variant, .. } => {
                if bytes % 2 != 0 {
                    return Err(usage("--bytes must be even (the copy moves fp16 elements)"));
                }
                for v in pick_variants(variant, &CopyCase::variants(), CopyCase::best(), "copy")? {
                    cases.push(Box::new(CopyCase::new(*bytes, v, seed)));
                }
                ""
            }
            BenchKernel::Gemm {
                shape,
                r#impl,
                variant,
                ..
            } => {
                let vs = pick_variants(variant, &gemm::variants(), gemm::best(), "hgemm")?;
                let GemmShape { m, n, k } = *shape;
                for side in ours_or_library(r#impl, &["wmma", "ours"], "cublas")? {
                    match side {
                        Side::Ours => {
                            for &v in &vs {
                                cases.push(Box::new(HgemmCase::new(m, n, k, v, seed)));
                            }
                        }
                        Side::Library => {
                            cases.push(Box::new(CublasGemmCase::new(m, n, k, Dtype::F16, seed)))
                        }
                    }
                }
                "cublas"
            }
            BenchKernel::GemmGelu {
                shape,
                r#impl,
                variant,
                gelu,
                ..
            } => {
                let kind = parse_gelu(gelu)?;
                let vs = pick_variants(
                    variant,
                    &gemm_gelu::variants(),
                    gemm_gelu::best(),
                    "gemm_bias_gelu",
                )?;
                let GemmShape { m, n, k } = *shape;
                for imp in r#impl {
                    if imp == "plain" {
                        for &v in &vs {
                            cases.push(Box::new(HgemmCase::new(m, n, k, v, seed)));
                        }
                        continue;
                    }
                    let imps: Vec<GeluImpl> = match imp.as_str() {
                        "fused" => vs.iter().map(|v| GeluImpl::Fused(*v)).collect(),
                        "unfused" => vs.iter().map(|v| GeluImpl::Unfused(*v)).collect(),
                        "unfused_cublas" => vec![GeluImpl::UnfusedCublas],
                        "cublaslt" if kind == 0 => vec![GeluImpl::Cublaslt],
                        "cublaslt" => {
                            return Err(usage(
                                "cuBLASLt's GELU epilogue is the tanh form: use --gelu tanh, or drop cublaslt from --impl",
                            ))
                        }
                        other => {
                            return Err(usage(format!(
                                "--impl '{other}': choose from fused, unfused, plain, unfused_cublas, cublaslt"
                            )))
                        }
                    };
                    for i in imps {
                        cases.push(Box::new(GemmGeluCase::new(m, n, k, i, kind, seed)));
                    }
                }
                "cublaslt"
            }
            BenchKernel::Gemv {
                shape,
                r#impl,
                variant,
                ..
            } => {
                let vs = pick_variants(variant, &gemv::variants(), gemv::best(), "gemv")?;
                let GemvShape { m, n, k } = *shape;
                if let Some(other) = r#impl
                    .iter()
                    .find(|i| !["ours", "cublas", "read"].contains(&i.as_str()))
                {
                    return Err(usage(format!(
                        "--impl '{other}': choose from ours, cublas, read"
                    )));
                }
                let (read, gemvs): (Vec<String>, Vec<String>) =
                    r#impl.iter().cloned().partition(|i| i == "read");
                if !read.is_empty() {
                    if 2 * k * n < 16 {
                        return Err(usage(format!(
                            "--impl read needs W of at least 16 bytes (N x K >= 8), got {n} x {k}"
                        )));
                    }
                    cases.push(Box::new(ReadCase::new(2 * k * n, seed)));
                }
                for side in ours_or_library(&gemvs, &["ours"], "cublas")? {
                    let imps = match side {
                        Side::Ours => vs.iter().map(|&v| GemvImpl::Ours(v)).collect(),
                        Side::Library => vec![GemvImpl::Cublas],
                    };
                    for i in imps {
                        cases.push(Box::new(GemvCase::new(m, n, k, i, seed)));
                    }
                }
                "cublas"
            }
            BenchKernel::Relu { elems, variant, .. } => {
                let vs = pick_variants(
                    variant,
                    &elementwise::variants(),
                    elementwise::best(),
                    "elementwise",
                )?;
                for v in vs {
                    cases.push(Box::new(ElementwiseCase::new(
                        Op::Relu,
                        elems.elems,
                        v,
                        seed,
                    )));
                }
                ""
            }
            BenchKernel::Gelu {
                elems,
                variant,
                gelu,
                ..
            } => {
                let kind = parse_gelu(gelu)?;
                let vs = pick_variants(
                    variant,
                    &elementwise::variants(),
                    elementwise::best(),
                    "elementwise",
                )?;
                for v in vs {
                    cases.push(Box::new(ElementwiseCase::new(
                        Op::Gelu(kind),
                        elems.elems,
                        v,
                        seed,
                    )));
                }
                ""
            }
            BenchKernel::Layernorm {
                rows,
                hidden,
                variant,
                ..
            } => {
                let vs = pick_variants(
                    variant,
                    &layernorm::variants(),
                    layernorm::best(),
                    "layernorm",
                )?;
                for v in vs {
                    cases.push(Box::new(LayerNormCase::new(*rows, *hidden, v, seed)));
                }
                ""
            }
        };
        Ok((cases, library))
    }
}

/// Runs the cases one after another (stopping early, keeping results, on Ctrl-C), or with
/// `interleave` as one comparison group (verified one by one, then timed interleaved), then
/// writes the results.
fn run_cases(
    device: usize,
    mut cases: Vec<Box<dyn BenchCase>>,
    cfg: &crate::measure::MeasureConfig,
    verify: bool,
    interleave: bool,
    output: &OutputArgs,
    library_impl: &str,
) -> Result<()> {
    let mut s = open_session(device)?;
    if interleave {
        let mut group: Vec<&mut dyn BenchCase> = cases
            .iter_mut()
            .map(|c| {
                let c: &mut dyn BenchCase = c.as_mut();
                c
            })
            .collect();
        s.run_group(&mut group, "bench", cfg, verify)?;
    } else {
        for c in cases.iter_mut() {
            if s.is_interrupted() {
                break;
            }
            s.run(c.as_mut(), "bench", cfg, verify)?;
        }
    }
    emit(&s.results(), output)?;
    print_relative(&s.records, library_impl);
    print_vs_read(&s.records);
    print_vs_plain(&s.records);
    finish(&s)
}
