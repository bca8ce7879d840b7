//! roofline-lab: where GPU inference kernels sit on the roofline, measured honestly, with
//! hand-written CUDA kernels beside cuBLAS.

pub mod check;
pub mod cli;
pub mod counters;
pub mod datasheet;
pub mod dtype;
pub mod error;
mod ffi;
pub mod gpu;
pub mod kernels;
pub mod measure;
pub mod plot;
pub mod registry;
pub mod results;
pub mod roofline;
pub mod session;
pub mod supervise;
pub mod sweeps;
pub mod toolkit;
pub mod user;
pub mod verify;

/// The commit this binary was built from (set by build.rs).
pub const GIT_COMMIT: &str = env!("ROOFLINE_GIT_COMMIT");
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
