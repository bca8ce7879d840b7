//! Correctness: float64 CPU references and the comparisons every bench runs before timing.

pub mod compare;
pub mod gemm;
pub mod reference;

pub use compare::{compare, Comparison, Tolerance};
