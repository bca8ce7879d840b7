//! cuBLASLt GEMM with a bias epilogue, in our row-major convention: the column-major problem is
//! C^T[n x m] = B^T[n x k] . A^T[k x m], and the bias (length n) runs along the column-major
//! rows. GELU_BIAS gives gelu(A.B + bias) (tanh form); BIAS with beta = 1 on an input C holding
//! the residual gives A.B + R + bias in one call (D = alpha A.B + beta C + bias), the library's
//! form of GEMM+bias+residual. The algorithm is chosen once per shape and dtype (fp16, or bf16
//! with the bias, C and R in bf16 too: the epilogue families' bf16 references).

use crate::dtype::Dtype;
use crate::gpu::Gpu;
use anyhow::{Context, Result};
use cudarc::cublaslt::result as lt;
use cudarc::cublaslt::sys::{
    cublasComputeType_t, cublasLtEpilogue_t, cublasLtMatmulAlgo_t,
    cublasLtMatmulDescAttributes_t as Attr, cublasLtMatmulDesc_t,
    cublasLtMatmulPreferenceAttributes_t, cublasLtMatrixLayout_t, cudaDataType,
};
use std::ffi::c_void;

/// The epilogue a plan applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LtEpilogue {
    /// gelu(A.B + bias), tanh form.
    GeluBias,
    /// A.B + R + bias, R the input C (beta = 1).
    BiasResidual,
}

pub struct LtPlan {
    epilogue: LtEpilogue,
    desc: cublasLtMatmulDesc_t,
    a: cublasLtMatrixLayout_t,
    b: cublasLtMatrixLayout_t,
    c: cublasLtMatrixLayout_t,
    algo: cublasLtMatmulAlgo_t,
}

impl LtPlan {
    pub fn new(
        gpu: &Gpu,
        (m, n, k): (u64, u64, u64),
        epilogue: LtEpilogue,
        dtype: Dtype,
    ) -> Result<Self> {
        let h = gpu.blas()?;
        let t = match dtype {
            Dtype::F16 => cudaDataType::CUDA_R_16F,
            Dtype::Bf16 => cudaDataType::CUDA_R_16BF,
        };
        let desc = lt::create_matmul_desc(
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
        .context("cublasLtMatmulDescCreate")?;
        let epi = match epilogue {
            LtEpilogue::GeluBias => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_GELU_BIAS,
            LtEpilogue::BiasResidual => cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS,
        };
        // SAFETY: desc is live; the attribute value is a plain enum read during the call.
        unsafe {
            lt::set_matmul_desc_attribute(
                desc,
                Attr::CUBLASLT_MATMUL_DESC_EPILOGUE,
                &epi as *const _ as *const c_void,
                std::mem::size_of_val(&epi),
            )?;
            let bias_type = t;
            lt::set_matmul_desc_attribute(
                desc,
                Attr::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                &bias_type as *const _ as *const c_void,
                std::mem::size_of_val(&bias_type),
            )?;
        }
        // Column-major views: A' = B (n x k, ld n), B' = A (k x m, ld k), C' (n x m, ld n).
        let a = lt::create_matrix_layout(t, n, k, n as i64)?;
        let b = lt::create_matrix_layout(t, k, m, k as i64)?;
        let c = lt::create_matrix_layout(t, n, m, n as i64)?;
        let pref = lt::create_matmul_pref()?;
        let ws = h.workspace_bytes();
        // SAFETY: all descriptors are live; the heuristic only reads them.
        let heur = unsafe {
            lt::set_matmul_pref_attribute(
                pref,
                cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &ws as *const usize as *const c_void,
                std::mem::size_of::<usize>(),
            )?;
            let r = lt::get_matmul_algo_heuristic(*h.lt_handle(), desc, a, b, c, c, pref);
            lt::destroy_matmul_pref(pref)?;
            r
        }
        .with_context(|| {
            format!("cuBLASLt has no {epilogue:?} algorithm for {m}x{n}x{k} in {dtype}")
        })?;
        Ok(LtPlan {
            epilogue,
            desc,
            a,
            b,
            c,
            algo: heur.algo,
        })
    }

    /// Enqueues C = gelu(A . B + bias) (GeluBias; `residual` is ignored) or C = A . B + bias +
    /// residual (BiasResidual) on the GPU's stream.
    ///
    /// # Safety
    /// a, b, bias, c (and residual for BiasResidual) must be device buffers of m*k, k*n, n and
    /// m*n (m*n) elements of the plan's dtype for the shape this plan was made for; c must not
    /// overlap residual.
    pub unsafe fn launch(
        &self,
        gpu: &Gpu,
        a: *const c_void,
        b: *const c_void,
        bias: *const c_void,
        residual: *const c_void,
        c: *mut c_void,
    ) -> Result<()> {
        let h = gpu.blas()?;
        lt::set_matmul_desc_attribute(
            self.desc,
            Attr::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
            &bias as *const _ as *const c_void,
            std::mem::size_of::<*const c_void>(),
        )?;
        let (beta, c_in) = match self.epilogue {
            LtEpilogue::GeluBias => (0.0f32, c as *const c_void),
            LtEpilogue::BiasResidual => (1.0f32, residual),
        };
        let alpha = 1.0f32;
        let ws = h.lt_workspace.ptr(gpu);
        lt::matmul(
            *h.lt_handle(),
            self.desc,
            &alpha as *const f32 as *const c_void,
            &beta as *const f32 as *const c_void,
            b,
            self.a,
            a,
            self.b,
            c_in,
            self.c,
            c,
            self.c,
            &self.algo,
            ws,
            h.workspace_bytes(),
            gpu.raw_stream() as _,
        )
        .context("cublasLtMatmul")
    }
}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: each descriptor was created in new() and is destroyed once here.
        unsafe {
            let _ = lt::destroy_matrix_layout(self.a);
            let _ = lt::destroy_matrix_layout(self.b);
            let _ = lt::destroy_matrix_layout(self.c);
            let _ = lt::destroy_matmul_desc(self.desc);
        }
    }
}
