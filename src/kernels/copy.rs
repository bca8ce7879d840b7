//! Memory-ceiling kernels (cuda/copy/) as BenchCases: device copy, one read, repeated L2 read,
//! and the empty kernel (the launch-latency floor).

use crate::error::usage;
use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::registry::{per_variant, Dispatch, Family, ShapeKind};
use crate::results::schema::Shape;
use crate::roofline::{work, ComputeUnit, Work};
use crate::user::plugin::LauncherAbi;
use crate::user::signature::{p, ParamKind::*};
use crate::user::{self, Arg, UserKernel};
use crate::verify::Tolerance;
use anyhow::Result;
use half::f16;
use rand::Rng;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

fn shape_bytes(bytes: u64) -> Shape {
    Shape::Bytes { bytes }
}

/// dst = src over `bytes` (even), verified bit for bit.
pub struct CopyCase {
    pub bytes: u64,
    pub variant: u32,
    pub seed: u64,
    sets: Vec<(DevBuf<f16>, DevBuf<f16>)>,
    /// A user's kernel run in place of ours (impl "user").
    user: Option<Arc<UserKernel>>,
}

impl CopyCase {
    pub fn new(bytes: u64, variant: u32, seed: u64) -> Self {
        CopyCase {
            bytes,
            variant,
            seed,
            sets: Vec::new(),
            user: None,
        }
    }
    pub fn user(bytes: u64, kernel: Arc<UserKernel>, seed: u64) -> Self {
        CopyCase {
            user: Some(kernel),
            ..Self::new(bytes, 0, seed)
        }
    }

    fn elems(&self) -> usize {
        (self.bytes / 2) as usize
    }

    /// Bytes one copy moves (read + written), from the work model.
    pub fn work_bytes(&self) -> f64 {
        work::copy(self.bytes).bytes
    }

    pub fn variants() -> Vec<(u32, String)> {
        super::variants::list_named(
            ffi::rl_copy_variant_count,
            ffi::rl_copy_variant_name,
            ffi::rl_copy_variant_summary,
        )
    }

    /// v3 (one block per chunk): the fastest copy measured on the H200.
    pub fn best() -> u32 {
        super::variants::best_of(&Self::variants(), 3)
    }
}

impl BenchCase for CopyCase {
    fn id(&self) -> CaseId {
        let shape = shape_bytes(self.bytes);
        match &self.user {
            Some(u) => CaseId::new("copy", "user", &user::variant_label(u), shape),
            None => CaseId::new("copy", "ours", &format!("v{}", self.variant), shape),
        }
    }
    fn work(&self) -> Work {
        work::copy(self.bytes)
    }
    fn set_bytes(&self) -> u64 {
        2 * self.bytes
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets.clear();
        for s in 0..sets {
            let src = DevBuf::random(
                gpu,
                self.elems(),
                self.seed + s as u64,
                -1.0,
                1.0,
                "copy source",
            )?;
            let dst = user::output(gpu, self.user.is_some(), self.elems(), "copy destination")?;
            self.sets.push((src, dst));
        }
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let (src, dst) = &self.sets[set];
        if let Some(u) = &self.user {
            let args = [
                Arg::Ptr(src.ptr(gpu)),
                Arg::Ptr(dst.ptr(gpu)),
                Arg::U64(self.bytes),
            ];
            return u.launch(gpu, &shape_bytes(self.bytes), &args);
        }
        // SAFETY: src and dst each hold bytes/2 f16 = `bytes` bytes.
        let code = unsafe {
            ffi::rl_copy(
                self.variant as i32,
                src.ptr(gpu),
                dst.ptr(gpu),
                self.bytes as usize,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(code, "copy", &shape_bytes(self.bytes).label())
    }
    fn reseed(&mut self, seed: u64) -> u64 {
        std::mem::replace(&mut self.seed, seed)
    }
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification> {
        if self.sets.is_empty() {
            self.prepare(gpu, 1)?;
        }
        self.sets[0].1.poison(gpu)?;
        self.launch(gpu, 0)?;
        gpu.sync("copy", &shape_bytes(self.bytes).label())?;
        let (src, dst) = (&self.sets[0].0, &self.sets[0].1);
        let (a, b) = (src.download(gpu)?, dst.download(gpu)?);
        let bad = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x.to_bits() != y.to_bits())
            .count();
        let v = Verification {
            passed: bad == 0,
            rel_err: if bad == 0 {
                0.0
            } else {
                bad as f64 / a.len() as f64
            },
            detail: if bad == 0 {
                "bit-exact against the source".into()
            } else {
                format!("{bad} of {} elements differ from the source", a.len())
            },
        };
        user::with_guards(gpu, v, &[("dst", &self.sets[0].1)])
    }
}

/// Reads `bytes` once (HBM read bandwidth when bytes >> L2).
pub struct ReadCase {
    pub bytes: u64,
    pub seed: u64,
    sets: Vec<DevBuf<f16>>,
    sink: Option<DevBuf<f32>>,
}

impl ReadCase {
    pub fn new(bytes: u64, seed: u64) -> Self {
        ReadCase {
            bytes: bytes / 16 * 16,
            seed,
            sets: Vec::new(),
            sink: None,
        }
    }
}

impl BenchCase for ReadCase {
    fn id(&self) -> CaseId {
        CaseId::new("read", "ours", "v1", shape_bytes(self.bytes))
    }
    fn work(&self) -> Work {
        Work {
            flops: 0.0,
            bytes: self.bytes as f64,
            unit: ComputeUnit::Fp32,
        }
    }
    fn set_bytes(&self) -> u64 {
        self.bytes
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        self.sets = (0..sets)
            .map(|s| {
                DevBuf::random(
                    gpu,
                    (self.bytes / 2) as usize,
                    self.seed + s as u64,
                    -1.0,
                    1.0,
                    "read source",
                )
            })
            .collect::<Result<_>>()?;
        // SAFETY: returns a constant.
        let n = unsafe { ffi::rl_read_sink_floats() };
        self.sink = Some(DevBuf::zeros(gpu, n, "read sink")?);
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let sink = self.sink.as_ref().expect("prepared");
        // SAFETY: the source holds `bytes` bytes; the sink holds rl_read_sink_floats floats.
        let code = unsafe {
            ffi::rl_read(
                self.sets[set].ptr(gpu),
                self.bytes as usize,
                sink.ptr(gpu) as *mut f32,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(code, "read", &shape_bytes(self.bytes).label())
    }
    fn verify(&mut self, _gpu: &Gpu) -> Result<Verification> {
        Ok(Verification {
            passed: true,
            rel_err: 0.0,
            detail: "read-only probe: nothing to check".into(),
        })
    }
}

/// Every block re-reads an L2-resident working set: the L2 read bandwidth.
pub struct L2ReadCase {
    pub bytes: u64,
    pub passes: i32,
    total_read: std::cell::Cell<f64>,
    buf: Option<DevBuf<f16>>,
    sink: Option<DevBuf<f32>>,
}

impl L2ReadCase {
    pub fn new(bytes: u64, passes: i32) -> Self {
        L2ReadCase {
            bytes: bytes / 16384 * 16384,
            passes,
            total_read: 0.0.into(),
            buf: None,
            sink: None,
        }
    }

    /// Bytes one launch reads (known after the first launch, from the launcher).
    pub fn bytes_per_launch(&self) -> f64 {
        self.total_read.get()
    }
}

impl BenchCase for L2ReadCase {
    fn id(&self) -> CaseId {
        CaseId::new("l2_read", "ours", "v1", shape_bytes(self.bytes))
    }
    fn work(&self) -> Work {
        Work {
            flops: 0.0,
            bytes: self.total_read.get(),
            unit: ComputeUnit::Fp32,
        }
    }
    fn set_bytes(&self) -> u64 {
        self.bytes
    }
    fn prepare(&mut self, gpu: &Gpu, _sets: usize) -> Result<()> {
        self.buf = Some(DevBuf::random(
            gpu,
            (self.bytes / 2) as usize,
            7,
            -1.0,
            1.0,
            "L2 working set",
        )?);
        self.sink = Some(DevBuf::zeros(
            gpu,
            unsafe { ffi::rl_read_sink_floats() },
            "L2 sink",
        )?);
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, _set: usize) -> Result<()> {
        let (buf, sink) = (
            self.buf.as_ref().expect("prepared"),
            self.sink.as_ref().expect("prepared"),
        );
        let mut total = 0.0f64;
        // SAFETY: buf holds `bytes` bytes, sink rl_read_sink_floats floats; total is a local.
        let code = unsafe {
            ffi::rl_read_repeat(
                buf.ptr(gpu),
                self.bytes as usize,
                self.passes,
                sink.ptr(gpu) as *mut f32,
                &mut total,
                gpu.raw_stream(),
            )
        };
        self.total_read.set(total);
        gpu.check_launch(code, "read_repeat", &shape_bytes(self.bytes).label())
    }
    fn verify(&mut self, _gpu: &Gpu) -> Result<Verification> {
        Ok(Verification {
            passed: true,
            rel_err: 0.0,
            detail: "read-only probe: nothing to check".into(),
        })
    }
}

/// An empty kernel: what one launch costs with no work.
pub struct EmptyCase;

impl BenchCase for EmptyCase {
    fn id(&self) -> CaseId {
        CaseId::new("empty", "ours", "v1", Shape::Elems { elems: 0 })
    }
    fn work(&self) -> Work {
        Work {
            flops: 0.0,
            bytes: 0.0,
            unit: ComputeUnit::Fp32,
        }
    }
    fn set_bytes(&self) -> u64 {
        0
    }
    fn prepare(&mut self, _gpu: &Gpu, _sets: usize) -> Result<()> {
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, _set: usize) -> Result<()> {
        // SAFETY: no pointers.
        let code = unsafe { ffi::rl_empty(gpu.raw_stream()) };
        gpu.check_launch(code, "empty", "-")
    }
    fn verify(&mut self, _gpu: &Gpu) -> Result<Verification> {
        Ok(Verification {
            passed: true,
            rel_err: 0.0,
            detail: "no output".into(),
        })
    }
}

fn bytes_of(s: &Shape) -> u64 {
    match *s {
        Shape::Bytes { bytes } => bytes,
        _ => unreachable!("copy was given the shape {}", s.label()),
    }
}

/// rl_copy's Rust type (bindgen'd from the public header into src/ffi.rs): what a copy
/// plugin exports (`--plugin`, docs/adding-a-kernel.md).
type Launcher =
    unsafe extern "C" fn(c_int, *const c_void, *mut c_void, usize, *mut c_void) -> c_int;

pub const FAMILY: Family = Family {
    name: "copy",
    aliases: &[],
    summary: "device-to-device copy: the kernel of the measured HBM ceiling",
    shape: ShapeKind::Bytes { bytes: 1 << 30 },
    references: &["its own input (bit for bit)"],
    tolerance: Tolerance::EXACT,
    impls: &["ours"],
    default_impls: &["ours"],
    library: "",
    takes_gelu: false,
    variants: CopyCase::variants,
    best: CopyCase::best,
    dispatch: &[Dispatch {
        shapes: "every size",
        runs: "v3: one block per chunk of 16-byte vectors",
        why: "the fastest copy measured on the H200",
    }],
    work: |s| work::copy(bytes_of(s)),
    // Even sizes only: the copy moves fp16 elements.
    check_shapes: || {
        [2u64, 14, 18, 4098, (8 << 20) + 6]
            .into_iter()
            .map(|bytes| Shape::Bytes { bytes })
            .collect()
    },
    random_shape: |rng| Shape::Bytes {
        bytes: 2 * rng.gen_range(1..=1u64 << 21),
    },
    check_cases: |s, vs, pick, _dtype| {
        let b = bytes_of(s);
        per_variant(vs, |v| Box::new(CopyCase::new(b, v, pick.seed_or(b))))
    },
    bench_cases: |r| {
        let b = bytes_of(&r.shape);
        if !b.is_multiple_of(2) {
            return Err(usage("--bytes must be even (the copy moves fp16 elements)"));
        }
        Ok(per_variant(&r.variants, |v| {
            Box::new(CopyCase::new(b, v, r.seed))
        }))
    },
    sweeps: &["elementwise"],
    elementwise_point: Some(|bytes, seed| Box::new(CopyCase::new(bytes, CopyCase::best(), seed))),
    user_params: &[
        p("const void* src", Ptr),
        p("void* dst", Ptr),
        p("unsigned long long bytes", U64),
    ],
    user_case: |s, k, _, seed| Box::new(CopyCase::user(bytes_of(s), k, seed)),
    plugin: LauncherAbi::of::<Launcher>(
        ffi::rl_copy,
        "rl_copy",
        "int rl_copy(int variant, const void *src, void *dst, size_t bytes, void *stream)",
        None,
    ),
    bf16: None,
};
