//! Safe wrappers over the C launchers, one module per kernel family, each exposing
//! BenchCases for the measurement engine. `unsafe` is confined to the launch calls, whose
//! pointer arguments come from DevBufs sized by the same module.

pub mod copy;
pub mod cublas_gemm;
pub mod cublaslt;
pub mod elementwise;
pub mod gemm;
pub mod gemm_gelu;
pub mod gemv;
pub mod layernorm;
pub mod peak;
pub mod variants;
