//! Work models: FLOPs and the minimum bytes (each input read once, each output written once)
//! for every kernel. Every count in the program comes from these functions.

use serde::{Deserialize, Serialize};

/// Which arithmetic roof bounds the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComputeUnit {
    Tensor,
    Fp32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
    pub unit: ComputeUnit,
}

/// Bytes per fp16 element.
pub const F16: f64 = 2.0;
/// FLOPs counted for one GELU (tanh form: x^3, fma, scale, tanh as ~1, 1+t, two multiplies).
pub const GELU_FLOPS: f64 = 8.0;
/// FLOPs counted per LayerNorm element: mean add, centre, square-add, scale, gamma, beta.
pub const LAYERNORM_FLOPS: f64 = 7.0;

impl Work {
    /// Arithmetic intensity, FLOP per byte.
    pub fn ai(&self) -> f64 {
        if self.bytes > 0.0 {
            self.flops / self.bytes
        } else {
            0.0
        }
    }
}

/// C[m x n] = A[m x k] . B[k x n], fp16: 2mnk FLOPs; A and B read, C written.
pub fn gemm(m: u64, n: u64, k: u64) -> Work {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    Work {
        flops: 2.0 * m * n * k,
        bytes: F16 * (m * k + k * n + m * n),
        unit: ComputeUnit::Tensor,
    }
}

/// gelu(A . B + bias): the GEMM plus bias add and GELU per output, plus the bias read.
/// Fused, unfused and cuBLASLt all do this same work; their times differ.
pub fn gemm_bias_gelu(m: u64, n: u64, k: u64) -> Work {
    let g = gemm(m, n, k);
    let mn = m as f64 * n as f64;
    Work {
        flops: g.flops + mn * (1.0 + GELU_FLOPS),
        bytes: g.bytes + F16 * n as f64,
        unit: ComputeUnit::Tensor,
    }
}

/// Decode GEMV / small-M GEMM: the GEMM model (dominated by reading W once).
pub fn gemv(m: u64, n: u64, k: u64) -> Work {
    gemm(m, n, k)
}

pub fn relu(elems: u64) -> Work {
    Work {
        flops: elems as f64,
        bytes: 2.0 * F16 * elems as f64,
        unit: ComputeUnit::Fp32,
    }
}

pub fn gelu(elems: u64) -> Work {
    Work {
        flops: GELU_FLOPS * elems as f64,
        bytes: 2.0 * F16 * elems as f64,
        unit: ComputeUnit::Fp32,
    }
}

/// x read, y written, gamma and beta read once.
pub fn layernorm(rows: u64, hidden: u64) -> Work {
    let (r, h) = (rows as f64, hidden as f64);
    Work {
        flops: LAYERNORM_FLOPS * r * h,
        bytes: F16 * (2.0 * r * h + 2.0 * h),
        unit: ComputeUnit::Fp32,
    }
}

/// A device copy of `bytes`: read plus write.
pub fn copy(bytes: u64) -> Work {
    Work {
        flops: 0.0,
        bytes: 2.0 * bytes as f64,
        unit: ComputeUnit::Fp32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn square_gemm_by_hand() {
        let w = gemm(4096, 4096, 4096);
        assert_eq!(w.flops, 2.0 * 4096f64.powi(3));
        assert_eq!(w.bytes, 3.0 * 2.0 * 4096f64.powi(2));
        // AI of an n^3 GEMM in fp16 = 2n^3 / 6n^2 = n/3
        assert_relative_eq!(w.ai(), 4096.0 / 3.0);
    }

    #[test]
    fn decode_gemv_is_about_one_flop_per_byte() {
        let w = gemv(1, 4096, 4096);
        assert_eq!(w.flops, 2.0 * 4096.0 * 4096.0);
        assert_eq!(w.bytes, 2.0 * (4096.0 + 4096.0 * 4096.0 + 4096.0));
        assert_relative_eq!(w.ai(), 0.99951, max_relative = 1e-4);
        // batch 256 pulls it up: 2*256*N*K / 2(256K + KN + 256N) ~ 227 at N=K=4096
        assert!(gemv(256, 4096, 4096).ai() > 200.0);
    }

    #[test]
    fn fused_adds_epilogue_and_bias() {
        let g = gemm(16, 4096, 4096);
        let f = gemm_bias_gelu(16, 4096, 4096);
        assert_eq!(f.flops - g.flops, 16.0 * 4096.0 * 9.0);
        assert_eq!(f.bytes - g.bytes, 2.0 * 4096.0);
    }

    #[test]
    fn memory_bound_models() {
        assert_eq!(relu(1000).bytes, 4000.0);
        assert_eq!(relu(1000).ai(), 0.25);
        assert_eq!(gelu(1000).flops, 8000.0);
        let ln = layernorm(32768, 4096);
        assert_eq!(ln.bytes, 2.0 * (2.0 * 32768.0 * 4096.0 + 2.0 * 4096.0));
        assert_eq!(copy(1 << 30).bytes, 2.0 * (1u64 << 30) as f64);
        assert_eq!(copy(10).ai(), 0.0);
    }
}
