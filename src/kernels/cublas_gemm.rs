//! cuBLAS GEMM in our row-major convention, as a reference and as the Tensor Core ceiling.
//!
//! Row-major C[m x n] = A[m x k] . B[k x n] is column-major C^T = B^T . A^T: cuBLAS is called
//! with the operands swapped and no transposes (m' = n, n' = m, lda = n, ldb = k, ldc = n).

pub use crate::dtype::Dtype;
use crate::dtype::Elem;
use crate::gpu::{DevBuf, Gpu, RandomFill};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::results::schema::Shape;
use crate::roofline::{work, Work};
use crate::verify::reference::Epilogue;
use anyhow::{bail, Result};
use cudarc::cublas::sys::{
    cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cublasStatus_t, cudaDataType,
};
use half::{bf16, f16};
use std::ffi::c_void;

/// The CUDA data type of a dtype, as cuBLAS's bindings spell it (cuBLASLt's are another enum).
fn cuda_type(dtype: Dtype) -> cudaDataType {
    match dtype {
        Dtype::F16 => cudaDataType::CUDA_R_16F,
        Dtype::Bf16 => cudaDataType::CUDA_R_16BF,
    }
}

/// Enqueues cublasGemmEx for row-major C = A . B (fp32 accumulation) on the GPU's stream.
///
/// # Safety
/// a, b, c must point to device buffers of at least m*k, k*n and m*n elements of `dtype`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_row_major(
    gpu: &Gpu,
    dtype: Dtype,
    a: *const c_void,
    b: *const c_void,
    c: *mut c_void,
    m: usize,
    n: usize,
    k: usize,
) -> Result<()> {
    let h = *gpu.blas()?.blas.handle();
    let (alpha, beta) = (1.0f32, 0.0f32);
    let t = cuda_type(dtype);
    let st = cudarc::cublas::sys::cublasGemmEx(
        h,
        cublasOperation_t::CUBLAS_OP_N,
        cublasOperation_t::CUBLAS_OP_N,
        n as i32,
        m as i32,
        k as i32,
        &alpha as *const f32 as *const c_void,
        b,
        t,
        n as i32,
        a,
        t,
        k as i32,
        &beta as *const f32 as *const c_void,
        c,
        t,
        n as i32,
        cublasComputeType_t::CUBLAS_COMPUTE_32F,
        cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
    );
    if st != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        bail!("cublasGemmEx {m}x{n}x{k} {} failed: {st:?}", dtype.name());
    }
    Ok(())
}

/// One set of GEMM operands: random A and B, poisoned C.
pub struct GemmSet<T> {
    pub a: DevBuf<T>,
    pub b: DevBuf<T>,
    pub c: DevBuf<T>,
}

impl<T: RandomFill> GemmSet<T> {
    pub fn new(gpu: &Gpu, m: u64, n: u64, k: u64, seed: u64) -> Result<Self> {
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let a = DevBuf::random(gpu, m * k, seed.wrapping_mul(3), -1.0, 1.0, "GEMM A")?;
        let b = DevBuf::random(gpu, k * n, seed.wrapping_mul(3) + 1, -1.0, 1.0, "GEMM B")?;
        // C starts as random data too; checked runs poison it first.
        let c = DevBuf::random(gpu, m * n, seed.wrapping_mul(3) + 2, -1.0, 1.0, "GEMM C")?;
        Ok(GemmSet { a, b, c })
    }
}

impl<T: Elem> GemmSet<T> {
    /// A set for one case: for a user's kernel (`user`) C has guard bands, so that a write
    /// past it is caught.
    pub fn for_case(gpu: &Gpu, m: u64, n: u64, k: u64, seed: u64, user: bool) -> Result<Self> {
        let mut g = GemmSet::new(gpu, m, n, k, seed)?;
        if user {
            g.c = crate::user::output(gpu, true, (m * n) as usize, "GEMM C")?;
        }
        Ok(g)
    }
}

/// The epilogue families' bias: n seeded values in [-1, 1], in the case's dtype.
pub fn random_bias<T: Elem>(gpu: &Gpu, n: u64, seed: u64) -> Result<DevBuf<T>> {
    DevBuf::random(gpu, n as usize, seed ^ 0xb1a5, -1.0, 1.0, "bias")
}

pub fn gemm_shape(m: u64, n: u64, k: u64) -> Shape {
    Shape::Gemm { m, n, k }
}

/// cuBLAS GEMM in fp16 or bf16 (the square and LLM sweeps' reference in either dtype, and the
/// tensor ceilings), checked against the float64 reference of its own inputs.
pub struct CublasGemmCase {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub dtype: Dtype,
    pub seed: u64,
    f16_sets: Vec<GemmSet<f16>>,
    bf16_sets: Vec<GemmSet<bf16>>,
}

impl CublasGemmCase {
    pub fn new(m: u64, n: u64, k: u64, dtype: Dtype, seed: u64) -> Self {
        CublasGemmCase {
            m,
            n,
            k,
            dtype,
            seed,
            f16_sets: Vec::new(),
            bf16_sets: Vec::new(),
        }
    }

    fn ptrs(&self, gpu: &Gpu, set: usize) -> (*mut c_void, *mut c_void, *mut c_void) {
        match self.dtype {
            Dtype::F16 => {
                let s = &self.f16_sets[set];
                (s.a.ptr(gpu), s.b.ptr(gpu), s.c.ptr(gpu))
            }
            Dtype::Bf16 => {
                let s = &self.bf16_sets[set];
                (s.a.ptr(gpu), s.b.ptr(gpu), s.c.ptr(gpu))
            }
        }
    }
}

impl BenchCase for CublasGemmCase {
    fn id(&self) -> CaseId {
        let mut id = CaseId::new("hgemm", "cublas", "", gemm_shape(self.m, self.n, self.k));
        id.dtype = self.dtype.name().into();
        id
    }
    fn work(&self) -> Work {
        work::gemm(self.m, self.n, self.k)
    }
    fn set_bytes(&self) -> u64 {
        work::gemm(self.m, self.n, self.k).bytes as u64
    }
    fn prepare(&mut self, gpu: &Gpu, sets: usize) -> Result<()> {
        gpu.blas()?;
        self.f16_sets.clear();
        self.bf16_sets.clear();
        for s in 0..sets as u64 {
            match self.dtype {
                Dtype::F16 => {
                    self.f16_sets
                        .push(GemmSet::new(gpu, self.m, self.n, self.k, self.seed + s)?)
                }
                Dtype::Bf16 => {
                    self.bf16_sets
                        .push(GemmSet::new(gpu, self.m, self.n, self.k, self.seed + s)?)
                }
            }
        }
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, set: usize) -> Result<()> {
        let (a, b, c) = self.ptrs(gpu, set);
        // SAFETY: the set's buffers were sized m*k, k*n, m*n for this dtype in prepare().
        unsafe {
            gemm_row_major(
                gpu,
                self.dtype,
                a,
                b,
                c,
                self.m as usize,
                self.n as usize,
                self.k as usize,
            )
        }
    }
    fn verify(&mut self, gpu: &Gpu) -> Result<Verification> {
        if self.f16_sets.is_empty() && self.bf16_sets.is_empty() {
            self.prepare(gpu, 1)?;
        }
        let (m, n, k) = (self.m, self.n, self.k);
        match self.dtype {
            Dtype::F16 => self.f16_sets[0].c.poison(gpu)?,
            Dtype::Bf16 => self.bf16_sets[0].c.poison(gpu)?,
        }
        self.launch(gpu, 0)?;
        gpu.sync(&self.id().describe(), &gemm_shape(m, n, k).label())?;
        use crate::verify::gemm::check_against_cpu as check;
        let tol = crate::verify::Tolerance::library(self.dtype);
        match self.dtype {
            Dtype::F16 => {
                let s = &self.f16_sets[0];
                check(gpu, &s.a, &s.b, &s.c, Epilogue::Plain, m, n, k, tol)
            }
            Dtype::Bf16 => {
                let s = &self.bf16_sets[0];
                check(gpu, &s.a, &s.b, &s.c, Epilogue::Plain, m, n, k, tol)
            }
        }
    }
}
