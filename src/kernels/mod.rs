//! Safe wrappers over the C launchers, one module per kernel family, each exposing
//! BenchCases for the measurement engine and its registry entry (`FAMILY`). `unsafe` is
//! confined to the launch calls, whose pointer arguments come from DevBufs sized by the same
//! module.

pub mod add_rmsnorm;
pub mod copy;
pub mod cublas_gemm;
pub mod cublaslt;
pub mod elementwise;
pub mod gemm;
pub mod gemm_gelu;
pub mod gemm_residual;
pub mod gemv;
pub mod layernorm;
pub mod peak;
pub mod variants;

use crate::registry::Family;

/// The registry (crate::registry::ALL): every kernel family, in the order `list`, `check`
/// and the report show them.
pub const FAMILIES: &[&Family] = &[
    &copy::FAMILY,
    &gemm::FAMILY,
    &gemm_gelu::FAMILY,
    &gemm_residual::FAMILY,
    &gemv::FAMILY,
    &elementwise::RELU,
    &elementwise::GELU,
    &layernorm::FAMILY,
    &add_rmsnorm::FAMILY,
];
