//! cuBLAS and cuBLASLt handles on our stream, each with its own 32 MiB workspace (the size
//! NVIDIA recommends for Hopper), so library calls can be captured into CUDA graphs.

use super::DevBuf;
use crate::error::LabError;
use anyhow::{Context, Result};
use cudarc::cublas::CudaBlas;
use cudarc::cublaslt::CudaBlasLT;
use cudarc::driver::CudaStream;
use std::sync::Arc;

const WORKSPACE_BYTES: usize = 32 << 20;

pub struct BlasHandles {
    pub blas: CudaBlas,
    pub lt: CudaBlasLT,
    pub lt_workspace: DevBuf<u8>,
    _blas_workspace: DevBuf<u8>,
}

impl BlasHandles {
    pub fn new(stream: &Arc<CudaStream>) -> Result<Self> {
        // SAFETY: only dlopen attempts; no cuBLAS call is made.
        let (has_blas, has_lt) = unsafe {
            (
                cudarc::cublas::sys::is_culib_present(),
                cudarc::cublaslt::sys::is_culib_present(),
            )
        };
        if !has_blas || !has_lt {
            return Err(LabError::NoGpu(
                "cuBLAS / cuBLASLt (libcublas.so.13, libcublasLt.so.13) not found: install the \
                 CUDA 13 math libraries or add their folder to LD_LIBRARY_PATH \
                 (e.g. /usr/local/cuda/lib64)"
                    .into(),
            )
            .into());
        }
        let blas = CudaBlas::new(stream.clone()).context("creating the cuBLAS handle")?;
        let lt = CudaBlasLT::new(stream.clone()).context("creating the cuBLASLt handle")?;
        let gpu_ws = |what| -> Result<DevBuf<u8>> {
            let mut b: DevBuf<u8> = alloc_on(stream, WORKSPACE_BYTES, what)?;
            stream.memset_zeros(b.slice_mut())?;
            Ok(b)
        };
        let blas_ws = gpu_ws("cuBLAS workspace")?;
        let lt_workspace = gpu_ws("cuBLASLt workspace")?;
        let (ptr, _) = cudarc::driver::DevicePtr::device_ptr(blas_ws.slice(), stream);
        // SAFETY: the workspace lives as long as the handle (both owned by self).
        let st = unsafe {
            cudarc::cublas::sys::cublasSetWorkspace_v2(
                *blas.handle(),
                ptr as *mut std::ffi::c_void,
                WORKSPACE_BYTES,
            )
        };
        anyhow::ensure!(
            st == cudarc::cublas::sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS,
            "cublasSetWorkspace failed: {st:?}"
        );
        Ok(BlasHandles {
            blas,
            lt,
            lt_workspace,
            _blas_workspace: blas_ws,
        })
    }

    pub fn lt_handle(&self) -> &cudarc::cublaslt::sys::cublasLtHandle_t {
        use cudarc::cublaslt::MatmulShared;
        self.lt.handle()
    }

    pub fn workspace_bytes(&self) -> usize {
        WORKSPACE_BYTES
    }
}

fn alloc_on(stream: &Arc<CudaStream>, bytes: usize, what: &str) -> Result<DevBuf<u8>> {
    DevBuf::from_slice(
        // SAFETY: zeroed by the caller right after allocation.
        unsafe { stream.alloc::<u8>(bytes) }.with_context(|| format!("allocating {what}"))?,
    )
}
