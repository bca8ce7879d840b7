//! The 16-bit float types kernels run in: fp16 (every family) and bf16 (the GEMM families'
//! last variants: HGEMM v14, GEMM+bias+GELU v7, GEMM+bias+residual v11, each through its C
//! table's `*_bf16` launcher). `Dtype` names one (flags, records, cuBLAS types); `Elem` is the
//! host element type of each, which the buffers, checks and references are generic over.

use crate::error::usage;
use crate::gpu::RandomFill;
use anyhow::Result;
use half::{bf16, f16};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dtype {
    #[default]
    F16,
    Bf16,
}

impl Dtype {
    pub const ALL: [Dtype; 2] = [Dtype::F16, Dtype::Bf16];

    /// The name in flags and records: "fp16", "bf16".
    pub fn name(&self) -> &'static str {
        match self {
            Dtype::F16 => "fp16",
            Dtype::Bf16 => "bf16",
        }
    }

    /// "" for fp16 (the default every message assumes), else " bf16": for launch and case names.
    pub fn suffix(&self) -> &'static str {
        match self {
            Dtype::F16 => "",
            Dtype::Bf16 => " bf16",
        }
    }

    /// `--dtype NAME`, with a usage error naming the choices.
    pub fn parse(s: &str) -> Result<Dtype> {
        Dtype::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| usage(format!("--dtype '{s}': choose fp16 or bf16")))
    }

    /// A record's `dtype` as a Dtype (None for a name this build does not run, e.g. "fp32").
    pub fn of_record(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A 16-bit float element on the host and the device: what its dtype is, how an unwritten
/// output element looks, and its value.
pub trait Elem: RandomFill + Copy + Send + Sync + 'static {
    const DTYPE: Dtype;
    /// A NaN bit pattern no kernel produces (kernels round NaN to the canonical one): an
    /// output element still holding it after a run was never written.
    const POISON: u16;
    fn to_f64(self) -> f64;
    fn to_bits(self) -> u16;
    fn from_f64(v: f64) -> Self;
}

impl Elem for f16 {
    const DTYPE: Dtype = Dtype::F16;
    const POISON: u16 = crate::gpu::POISON_F16;
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn to_bits(self) -> u16 {
        f16::to_bits(self)
    }
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
}

impl Elem for bf16 {
    const DTYPE: Dtype = Dtype::Bf16;
    const POISON: u16 = crate::gpu::POISON_BF16;
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn to_bits(self) -> u16 {
        bf16::to_bits(self)
    }
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::parse(d.name()).unwrap(), d);
            assert_eq!(Dtype::of_record(&d.to_string()), Some(d));
        }
        assert_eq!(Dtype::default(), Dtype::F16);
        let e = Dtype::parse("fp32").unwrap_err().to_string();
        assert!(e.contains("fp32") && e.contains("fp16 or bf16"), "{e}");
        assert_eq!(Dtype::of_record("fp32"), None);
    }

    #[test]
    fn poison_is_a_nan_of_its_own_type_and_never_a_rounded_nan() {
        let f = f16::from_bits(<f16 as Elem>::POISON);
        let b = bf16::from_bits(<bf16 as Elem>::POISON);
        assert!(f.is_nan() && b.is_nan());
        // the canonical NaNs a kernel's rounding gives (0x7e00 / 0x7fff; half's 0x7fc0)
        assert_ne!(f.to_bits(), f16::NAN.to_bits());
        assert!(![bf16::NAN.to_bits(), 0x7fff, 0x7fc0].contains(&b.to_bits()));
    }
}
