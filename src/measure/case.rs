//! What a kernel implementation gives the engine: its identity, its work model, and how to
//! allocate, launch and verify itself. The engine owns timing, statistics and cache modes.

use crate::gpu::Gpu;
use crate::results::schema::Shape;
use crate::roofline::Work;
use anyhow::Result;

/// Identifies a measurement; becomes the record's kernel/impl/variant/shape/dtype.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseId {
    pub kernel: String,
    pub impl_: String,
    pub variant: String,
    pub shape: Shape,
    pub dtype: String,
}

impl CaseId {
    pub fn new(kernel: &str, impl_: &str, variant: &str, shape: Shape) -> Self {
        CaseId {
            kernel: kernel.into(),
            impl_: impl_.into(),
            variant: variant.into(),
            shape,
            dtype: "fp16".into(),
        }
    }

    /// "hgemm ours v4 4096x4096x4096", for messages; a dtype other than fp16 is named after
    /// the shape ("hgemm ours v12 4096x4096x4096 bf16").
    pub fn describe(&self) -> String {
        let v = if self.variant.is_empty() {
            String::new()
        } else {
            format!(" {}", self.variant)
        };
        let d = if self.dtype == "fp16" {
            String::new()
        } else {
            format!(" {}", self.dtype)
        };
        format!(
            "{} {}{} {}{d}",
            self.kernel,
            self.impl_,
            v,
            self.shape.label()
        )
    }
}

/// The outcome of checking one run against references.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub passed: bool,
    /// Relative Frobenius error ||out - ref|| / ||ref|| against the primary reference.
    pub rel_err: f64,
    /// What it was compared with ("cuBLAS", "float64 CPU", ...), and any failure detail.
    pub detail: String,
}

pub trait BenchCase {
    fn id(&self) -> CaseId;
    /// FLOPs and minimum bytes from the kernel family's one work model.
    fn work(&self) -> Work;
    /// Device bytes one buffer set holds (inputs and outputs), for cold-L2 rotation.
    fn set_bytes(&self) -> u64;
    /// Allocates `sets` independent buffer sets with seeded random inputs.
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()>;
    /// Enqueues one run on the GPU's stream using buffer set `set`. Must not synchronise:
    /// it is also captured into CUDA graphs.
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()>;
    /// Poisons set 0's output, runs once, compares with the references.
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification>;
    /// Sets the seed the next `prepare` draws its inputs from and returns the one before.
    /// The check after timing draws fresh inputs with it, so a kernel that replays a
    /// remembered output fails. Cases without random inputs keep no seed.
    fn reseed(&mut self, _seed: u64) -> u64 {
        0
    }
}
