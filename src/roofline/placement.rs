//! Where a measurement sits: achieved rates, the attainable rate at its intensity under each
//! roof, the predicted time max(FLOPs/peak, bytes/bandwidth, latency floor), and the bound.

use super::work::{ComputeUnit, Work};
use serde::{Deserialize, Serialize};

/// The roofs a placement uses (measured values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Roofs {
    pub hbm_gbs: f64,
    pub l2_gbs: f64,
    pub tensor_tflops: f64,
    pub fp32_tflops: f64,
    /// The launch-latency floor for this timing mode, in ms.
    pub latency_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Memory,
    Compute,
    Latency,
}

impl Bound {
    pub fn as_str(&self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
            Bound::Latency => "latency",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub tflops: f64,
    pub gbs: f64,
    pub ai: f64,
    /// min(compute roof, AI x HBM bandwidth), TFLOP/s.
    pub attainable_hbm_tflops: f64,
    /// min(compute roof, AI x L2 bandwidth), TFLOP/s: what an L2-resident run could reach.
    pub attainable_l2_tflops: f64,
    pub predicted_ms: f64,
    /// 100 x predicted / measured: 100 means on the roof; above 100 beats the HBM model
    /// (the data came from L2).
    pub pct_attainable: f64,
    pub bound: Bound,
}

fn compute_roof(work: &Work, roofs: &Roofs) -> f64 {
    match work.unit {
        ComputeUnit::Tensor => roofs.tensor_tflops,
        ComputeUnit::Fp32 => roofs.fp32_tflops,
    }
}

pub fn place(work: &Work, measured_ms: f64, roofs: &Roofs) -> Placement {
    let secs = measured_ms / 1e3;
    let ai = work.ai();
    let peak = compute_roof(work, roofs);
    let t_compute = work.flops / (peak * 1e12) * 1e3;
    let t_memory = work.bytes / (roofs.hbm_gbs * 1e9) * 1e3;
    let t_latency = roofs.latency_ms;
    let (predicted_ms, bound) = if t_latency >= t_compute && t_latency >= t_memory {
        (t_latency, Bound::Latency)
    } else if t_compute >= t_memory {
        (t_compute, Bound::Compute)
    } else {
        (t_memory, Bound::Memory)
    };
    Placement {
        tflops: work.flops / secs / 1e12,
        gbs: work.bytes / secs / 1e9,
        ai,
        attainable_hbm_tflops: peak.min(ai * roofs.hbm_gbs / 1e3),
        attainable_l2_tflops: peak.min(ai * roofs.l2_gbs / 1e3),
        predicted_ms,
        pct_attainable: 100.0 * predicted_ms / measured_ms,
        bound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofline::work;
    use approx::assert_relative_eq;

    fn h200() -> Roofs {
        Roofs {
            hbm_gbs: 4250.0,
            l2_gbs: 10000.0,
            tensor_tflops: 750.0,
            fp32_tflops: 60.0,
            latency_ms: 0.0025,
        }
    }

    #[test]
    fn big_gemm_is_compute_bound() {
        let w = work::gemm(8192, 8192, 8192);
        // 2*8192^3 = 1.0995e12 FLOP at 750 TFLOP/s = 1.466 ms
        let p = place(&w, 2.0, &h200());
        assert_eq!(p.bound, Bound::Compute);
        assert_relative_eq!(
            p.predicted_ms,
            1.0995e12 / 750e12 * 1e3,
            max_relative = 1e-3
        );
        assert_relative_eq!(p.pct_attainable, 100.0 * p.predicted_ms / 2.0);
        assert_relative_eq!(p.tflops, 1.0995e12 / 2e-3 / 1e12, max_relative = 1e-3);
        assert_eq!(p.attainable_hbm_tflops, 750.0);
    }

    #[test]
    fn decode_gemv_is_memory_bound() {
        let w = work::gemv(1, 8192, 8192);
        // 134.3 MB at 4250 GB/s = 31.6 us
        let p = place(&w, 0.035, &h200());
        assert_eq!(p.bound, Bound::Memory);
        assert_relative_eq!(p.predicted_ms, w.bytes / 4250e9 * 1e3);
        assert_relative_eq!(p.gbs, w.bytes / 35e-6 / 1e9);
        // attainable = AI x 4250 GB/s ~ 4.25 TFLOP/s
        assert_relative_eq!(p.attainable_hbm_tflops, w.ai() * 4.25, max_relative = 1e-9);
        assert!(p.pct_attainable < 100.0);
    }

    #[test]
    fn tiny_kernel_is_latency_bound() {
        let w = work::relu(1024);
        let p = place(&w, 0.003, &h200());
        assert_eq!(p.bound, Bound::Latency);
        assert_relative_eq!(p.pct_attainable, 100.0 * 0.0025 / 0.003);
    }

    #[test]
    fn hot_l2_can_beat_the_hbm_roof() {
        let w = work::gemv(1, 4096, 4096);
        let hbm_time = w.bytes / 4250e9 * 1e3;
        let p = place(&w, hbm_time / 2.0, &h200());
        assert!(p.pct_attainable > 190.0);
        assert!(p.attainable_l2_tflops > p.attainable_hbm_tflops);
    }
}
