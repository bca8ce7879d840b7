//! `roofline bench <kernel>`: verify, time and place one kernel (and its references).

use super::args::{parse_dim, parse_size, MeasureArgs, OutputArgs};
use super::output::emit;
use crate::counters::{CounterPass, ProbeSpec};
use crate::dtype::Dtype;
use crate::error::usage;
use crate::gpu::Gpu;
use crate::kernels::variants;
use crate::measure::BenchCase;
use crate::registry::{self, BenchRequest, Family, ShapeFlags};
use crate::results::schema::{Record, Shape};
use crate::roofline::probe;
use crate::session::Session;
use crate::user::plugin::Plugin;
use crate::user::{kernel, UserKernel, UserSource, UserSpec};
use anyhow::Result;
use clap::Args;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Kernel family (`roofline list` names and describes each: its shape flags,
    /// implementations and variants)
    pub family: String,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Implementations to run (default: the family's; e.g. ours,cublas for hgemm)
    #[arg(long, value_delimiter = ',')]
    pub r#impl: Vec<String>,
    /// Our variant(s): v1, v2, ..., best, latest, or all
    #[arg(long, default_value = "best")]
    pub variant: String,
    /// GELU form, for families with a GELU: tanh (approximation, as cuBLASLt) or erf
    #[arg(long)]
    pub gelu: Option<String>,
    /// Element type: fp16, or bf16 for the GEMM families' variants with a bf16 form (`roofline
    /// list` marks them: best's and the candidates') and their libraries (cuBLAS, cuBLASLt in bf16)
    #[arg(long, default_value = "fp16")]
    pub dtype: String,
    #[command(flatten)]
    pub user: UserKernelArgs,
    /// After timing, run each case once more under Nsight Compute (ncu) and add the DRAM
    /// bytes, L2 hit rate and FLOPs its hardware counters measured to its record
    #[arg(long)]
    pub counters: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Every family's shape flags; each family takes one kind (GEMMs --m --n --k, row-wise
/// kernels --rows --hidden, elementwise --elems, the copy --bytes) and refuses the others.
#[derive(Args, Debug, Clone)]
pub struct ShapeArgs {
    /// Rows of A and C (GEMMs; decode batch for gemv) [default: the family's]
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub m: Option<u64>,
    /// Columns of B and C
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub n: Option<u64>,
    /// Columns of A, rows of B
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub k: Option<u64>,
    /// Rows (row-wise kernels)
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub rows: Option<u64>,
    /// Hidden size, the row length (row-wise kernels)
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub hidden: Option<u64>,
    /// Number of fp16 elements (elementwise kernels)
    #[arg(long, allow_negative_numbers = true, value_parser = parse_dim)]
    pub elems: Option<u64>,
    /// Bytes to copy, e.g. 1GiB (copy)
    #[arg(long, allow_negative_numbers = true, value_parser = parse_size)]
    pub bytes: Option<u64>,
}

impl ShapeArgs {
    fn flags(&self) -> ShapeFlags {
        ShapeFlags {
            m: self.m,
            n: self.n,
            k: self.k,
            rows: self.rows,
            hidden: self.hidden,
            elems: self.elems,
            bytes: self.bytes,
        }
    }
}

/// A user's kernel file or plugin (docs/adding-a-kernel.md, "Bring your own kernel").
#[derive(Args, Debug, Clone)]
pub struct UserKernelArgs {
    /// Your CUDA file: extern "C" __global__ kernel(s) with the family's parameter list and a
    /// `// roofline:` launch block; compiled at run time (NVRTC) and run as impl "user"
    #[arg(long, value_name = "FILE.cu")]
    pub kernel_file: Option<std::path::PathBuf>,
    /// Your shared library (nvcc -shared) exporting a launcher with the family's C signature
    /// (`roofline list` prints it; SYMBOL defaults to the family's launcher name); run as
    /// impl "user"
    #[arg(long, value_name = "LIB.so[:SYMBOL]", conflicts_with = "kernel_file")]
    pub plugin: Option<String>,
    /// The kernel to run when the file holds several
    #[arg(long, requires = "kernel_file")]
    pub symbol: Option<String>,
    /// Only compile the file and check its signature (no GPU needed)
    #[arg(long, requires = "kernel_file")]
    pub compile_only: bool,
    /// Architecture for --compile-only (on a GPU, the GPU's own)
    #[arg(long, default_value = "sm_90a", requires = "compile_only")]
    pub arch: String,
}

impl UserKernelArgs {
    /// The parsed file, checked against `family`, or the loaded plugin (before any GPU work).
    pub fn spec(&self, family: &'static Family) -> Result<Option<UserSpec>> {
        if let Some(p) = &self.plugin {
            return Ok(Some(UserSpec::Plugin(Plugin::load(p, family)?)));
        }
        let Some(path) = &self.kernel_file else {
            return Ok(None);
        };
        let src = UserSource::load(path, self.symbol.as_deref())?;
        kernel::check_family(&src, family)?;
        Ok(Some(UserSpec::File(src)))
    }

    /// `--compile-only`: compiles, checks the signature, says so. No GPU.
    pub fn compile_only(&self, src: &UserSource, family: &'static Family) -> Result<()> {
        let c = kernel::compile_checked(src, family, &self.arch)?;
        println!(
            "{}: {} compiles for {} ({} bytes of CUBIN{}) and takes the {} signature {}",
            src.path.display(),
            src.symbol,
            c.arch,
            c.cubin.len(),
            if c.cached { ", cached" } else { "" },
            family.name,
            crate::user::signature::c_signature(family.user_params)
        );
        Ok(())
    }
}

/// "v3", "best" or "all" against a family's variants ("all": those with a form in `dtype`).
pub fn pick_variants(spec: &str, family: &Family, dtype: Dtype) -> Result<Vec<u32>> {
    let available = (family.variants)();
    if spec == "all" {
        return Ok(family.variants_in(dtype));
    }
    spec.split(',')
        .map(|s| variants::parse(s.trim(), &available, (family.best)(), family.name).map_err(usage))
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
                && l.dtype == r.dtype
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

/// The HGEMM variant ("vN") whose kernels one of our epilogue records ran: its plain twin
/// (the unfused pair records the twin's number itself); None for any other record.
fn plain_twin_of(r: &Record) -> Option<String> {
    use crate::kernels::{gemm_gelu, gemm_residual};
    let twin: fn(u32) -> u32 = match (r.kernel.as_str(), r.impl_.as_str()) {
        ("gemm_bias_gelu" | "gemm_bias_gelu_erf", "unfused") => return Some(r.variant.clone()),
        ("gemm_bias_gelu" | "gemm_bias_gelu_erf", "ours") => gemm_gelu::plain_variant,
        ("gemm_residual", "ours") => gemm_residual::plain_variant,
        _ => return None,
    };
    let v: u32 = r.variant.strip_prefix('v')?.parse().ok()?;
    Some(format!("v{}", twin(v)))
}

/// Prints each of our epilogue records' time (GEMM+GELU fused and unfused, GEMM+residual) over
/// our plain GEMM of the same main loop (its plain twin), shape, cache and timing (as `bench
/// gemm-gelu --impl plain` adds): what the epilogue costs.
pub fn print_vs_plain(records: &[Record]) {
    for r in records {
        let Some(twin) = plain_twin_of(r) else {
            continue;
        };
        if let Some(plain) = records.iter().find(|l| {
            l.kernel == "hgemm"
                && l.impl_ == "ours"
                && l.variant == twin
                && l.shape == r.shape
                && l.dtype == r.dtype
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
    // Everything is validated (flags, output path, variants, impls, the user's file) before
    // the GPU opens.
    let cfg = a.measure.config()?;
    a.output.validate()?;
    let (family, cases, user) = a.cases()?;
    if let Some(UserRun {
        spec: UserSpec::File(src),
        ..
    }) = &user
    {
        if a.user.compile_only {
            return a.user.compile_only(src, family);
        }
    }
    // ncu is looked for before the GPU opens: without it, one line says so and the bench runs.
    let counters = match a.counters.then(|| CounterPass::new(device)).flatten() {
        Some(pass) => Some((pass, a.probe_request(family)?)),
        None => None,
    };
    run_cases(
        device,
        cases,
        user,
        &cfg,
        !a.measure.no_verify,
        a.measure.interleave,
        &a.output,
        family.library,
        counters,
    )
}

/// What a bench runs: the family, our (and the library's) cases, and the user's kernel.
type Planned = (&'static Family, Vec<Box<dyn BenchCase>>, Option<UserRun>);

/// A user's kernel to load once the GPU is open, and the case to run it in.
pub struct UserRun {
    pub spec: UserSpec,
    pub family: &'static Family,
    pub shape: Shape,
    pub gelu: i32,
    pub seed: u64,
}

impl UserRun {
    /// Loads the user's kernel (the GPU is open) and builds the family's case around it.
    pub fn into_case(self, gpu: &Gpu) -> Result<Box<dyn BenchCase>> {
        let k = UserKernel::load(gpu, self.spec, self.family)?;
        if let Some(c) = k.compiled().filter(|c| !c.cached) {
            eprintln!("compiled {} for {}", k.label(), c.arch);
        }
        Ok((self.family.user_case)(
            &self.shape,
            k,
            self.gelu,
            self.seed,
        ))
    }
}

impl BenchArgs {
    /// This request as `probe-case` arguments (--counters rebuilds each case from them).
    fn probe_request(&self, family: &Family) -> Result<Vec<std::ffi::OsString>> {
        let shape = family.resolve_shape(&self.shape.flags())?;
        Ok(crate::counters::Request {
            family: family.name,
            shape: Some(&shape),
            impls: &self.r#impl,
            variant: &self.variant,
            gelu: self.gelu.as_deref(),
            dtype: Dtype::parse(&self.dtype)?,
            seed: self.measure.seed,
            kernel_file: self.user.kernel_file.as_deref(),
            symbol: self.user.symbol.as_deref(),
            plugin: self.user.plugin.as_deref(),
        }
        .args())
    }

    /// The family, the cases to run (built by the family from the validated request) and
    /// the user's kernel, if any.
    pub(super) fn cases(&self) -> Result<Planned> {
        let family = registry::get(&self.family, "")?;
        let dtype = Dtype::parse(&self.dtype)?;
        let has_user = self.user.kernel_file.is_some() || self.user.plugin.is_some();
        if has_user && dtype != Dtype::F16 {
            return Err(usage(format!(
                "--dtype {dtype}: a user's kernel (--kernel-file, --plugin) runs in fp16; drop \
                 --dtype or the kernel"
            )));
        }
        let spec = self.user.spec(family)?;
        // "user" names the user's kernel in --impl; with a file or plugin and no --impl it
        // joins the family's defaults.
        let wants_user = self.r#impl.iter().any(|i| i == "user");
        if wants_user && spec.is_none() {
            return Err(usage(
                "--impl user needs --kernel-file FILE.cu or --plugin LIB.so",
            ));
        }
        let ours: Vec<String> = self
            .r#impl
            .iter()
            .filter(|i| *i != "user")
            .cloned()
            .collect();
        let impls = if ours.is_empty() && wants_user {
            Vec::new()
        } else {
            family.resolve_impls(&ours)?
        };
        let variants = pick_variants(&self.variant, family, dtype)?;
        // bf16: the family, the variants and the impls must have a bf16 form (the defaults are
        // narrowed to those that do).
        let impls = family.check_dtype(dtype, &variants, impls, ours.is_empty())?;
        let gelu = match &self.gelu {
            Some(g) if !family.takes_gelu => {
                return Err(usage(format!(
                    "--gelu {g}: {} has no GELU form to choose",
                    family.name
                )))
            }
            Some(g) => parse_gelu(g)?,
            None => 0,
        };
        let req = BenchRequest {
            shape: family.resolve_shape(&self.shape.flags())?,
            impls,
            variants,
            gelu,
            seed: self.measure.seed,
            dtype,
        };
        let user = spec.map(|spec| UserRun {
            spec,
            family,
            shape: req.shape.clone(),
            gelu,
            seed: req.seed,
        });
        let cases = if req.impls.is_empty() {
            Vec::new()
        } else {
            (family.bench_cases)(&req)?
        };
        Ok((family, cases, user))
    }
}

/// Runs the cases one after another (stopping early, keeping results, on Ctrl-C), or with
/// `interleave` as one comparison group (verified one by one, then timed interleaved), then
/// writes the results. A user's kernel is loaded once the GPU is open and runs last, so a
/// fault or hang in it cannot take what was measured before it: on any error the records
/// already measured are written first.
#[allow(clippy::too_many_arguments)]
fn run_cases(
    device: usize,
    mut cases: Vec<Box<dyn BenchCase>>,
    user: Option<UserRun>,
    cfg: &crate::measure::MeasureConfig,
    verify: bool,
    interleave: bool,
    output: &OutputArgs,
    library_impl: &str,
    counters: Option<(CounterPass, Vec<std::ffi::OsString>)>,
) -> Result<()> {
    let mut s = open_session(device)?;
    let outcome = (|| -> Result<()> {
        if let Some(u) = user {
            cases.push(u.into_case(&s.gpu)?);
        }
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
        Ok(())
    })();
    if let Err(e) = outcome {
        if !s.records.is_empty() {
            emit(&s.results(), output)?;
            eprintln!(
                "kept the {} record(s) measured before the error",
                s.records.len()
            );
        }
        crate::error::exit_now_if_hung(&e);
        return Err(e);
    }
    if let Some((mut pass, request)) = counters {
        let specs = ProbeSpec::for_cases(request, &cases, cfg.cache);
        // The cases' buffers are freed first: the profiled child allocates its own.
        drop(cases);
        pass.attach(&specs, &mut s.records);
    }
    emit(&s.results(), output)?;
    print_relative(&s.records, library_impl);
    print_vs_read(&s.records);
    print_vs_plain(&s.records);
    finish(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each epilogue record is compared with the plain GEMM its variant runs (fused v4 with
    /// HGEMM v11, not with an HGEMM "v4"); other records with none.
    #[test]
    fn epilogue_records_find_their_plain_twin() {
        let file = crate::results::schema::tests::fixture();
        let mut r = file.records[0].clone();
        for (kernel, imp, variant, twin) in [
            ("gemm_bias_gelu", "ours", "v4", Some("v11")),
            ("gemm_bias_gelu_erf", "ours", "v1", Some("v8")),
            ("gemm_bias_gelu", "unfused", "v11", Some("v11")),
            ("gemm_residual", "ours", "v4", Some("v11")),
            ("gemm_residual", "ours", "v3", Some("v10")),
            ("gemm_residual", "cublaslt", "", None),
            ("hgemm", "ours", "v11", None),
        ] {
            (r.kernel, r.impl_, r.variant) = (kernel.into(), imp.into(), variant.into());
            assert_eq!(
                plain_twin_of(&r).as_deref(),
                twin,
                "{kernel} {imp} {variant}"
            );
        }
    }
}
