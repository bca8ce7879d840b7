//! Safe wrappers over the C launchers, one module per kernel family, each exposing
//! BenchCases for the measurement engine. `unsafe` is confined to the launch calls, whose
//! pointer arguments come from DevBufs sized by the same module.

pub mod copy;
pub mod cublas_gemm;
pub mod peak;
pub mod variants;
