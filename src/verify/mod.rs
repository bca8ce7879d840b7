//! Correctness: float64 CPU references and the comparisons every bench runs before timing.

pub mod compare;
pub mod fp16;
pub mod gemm;
pub mod par;
pub mod reference;

pub use compare::{compare, Comparison, Tolerance};
