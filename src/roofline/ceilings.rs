//! The ceilings measured on this GPU, stored as JSON per device, and their conversion to
//! the result schema's Ceiling list and to placement Roofs.

use super::placement::Roofs;
use crate::datasheet::{ridge_point, Datasheet};
use crate::measure::TimingMode;
use crate::results::schema::{Ceiling, CeilingKind};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCeilings {
    pub device: String,
    pub driver: String,
    pub cuda_driver: String,
    pub date: String,
    pub sm_clock_mhz_during: Option<u32>,
    pub hbm_copy_gbs: f64,
    pub hbm_read_gbs: f64,
    pub l2_read_gbs: f64,
    pub tensor_cublas_fp16_tflops: f64,
    pub tensor_cublas_bf16_tflops: f64,
    pub tensor_wmma_tflops: f64,
    pub fp32_ffma_tflops: f64,
    pub fp16_hfma2_tflops: f64,
    pub launch_single_us: f64,
    pub launch_graph_us: f64,
    /// An empty kernel in `kernel` timing (behind the blocking kernel): the GPU's own floor
    /// for one launch. Missing in ceilings cached by older builds (then re-measured).
    #[serde(default)]
    pub launch_kernel_us: f64,
    /// How each figure was measured, keyed like the ceiling names.
    pub method: Vec<(String, String)>,
}

impl MeasuredCeilings {
    /// Roofs for placing a kernel timed in `timing` mode: the HBM copy bandwidth, the
    /// cuBLAS fp16 Tensor Core rate, FP32 FFMA, and that mode's launch floor.
    pub fn roofs(&self, timing: TimingMode) -> Roofs {
        Roofs {
            hbm_gbs: self.hbm_copy_gbs,
            l2_gbs: self.l2_read_gbs,
            tensor_tflops: self.tensor_cublas_fp16_tflops,
            fp32_tflops: self.fp32_ffma_tflops,
            latency_ms: match timing {
                TimingMode::Kernel => self.launch_kernel_us,
                TimingMode::Launch => self.launch_single_us,
                TimingMode::Graph => self.launch_graph_us,
            } / 1e3,
        }
    }

    /// Every measured and datasheet ceiling, for results files and charts.
    pub fn to_ceilings(&self, ds: &Datasheet) -> Vec<Ceiling> {
        let m = |name: &str, kind, value: f64, unit: &str, label: String| Ceiling {
            name: name.into(),
            kind,
            value,
            unit: unit.into(),
            source: "measured".into(),
            label,
        };
        let d = |name: &str, kind, value: f64, unit: &str, label: String| Ceiling {
            name: name.into(),
            kind,
            value,
            unit: unit.into(),
            source: "datasheet".into(),
            label,
        };
        use CeilingKind::*;
        vec![
            m(
                "hbm_copy",
                Memory,
                self.hbm_copy_gbs,
                "GB/s",
                format!("HBM copy {:.2} TB/s", self.hbm_copy_gbs / 1e3),
            ),
            m(
                "hbm_read",
                Memory,
                self.hbm_read_gbs,
                "GB/s",
                format!("HBM read {:.2} TB/s", self.hbm_read_gbs / 1e3),
            ),
            m(
                "l2_read",
                Memory,
                self.l2_read_gbs,
                "GB/s",
                format!("L2 read {:.1} TB/s", self.l2_read_gbs / 1e3),
            ),
            m(
                "tensor_cublas_fp16",
                Compute,
                self.tensor_cublas_fp16_tflops,
                "TFLOP/s",
                format!("cuBLAS fp16 {:.0} TFLOP/s", self.tensor_cublas_fp16_tflops),
            ),
            m(
                "tensor_cublas_bf16",
                Compute,
                self.tensor_cublas_bf16_tflops,
                "TFLOP/s",
                format!("cuBLAS bf16 {:.0} TFLOP/s", self.tensor_cublas_bf16_tflops),
            ),
            m(
                "tensor_wmma",
                Compute,
                self.tensor_wmma_tflops,
                "TFLOP/s",
                format!("WMMA peak {:.0} TFLOP/s", self.tensor_wmma_tflops),
            ),
            m(
                "fp32_ffma",
                Compute,
                self.fp32_ffma_tflops,
                "TFLOP/s",
                format!("FP32 FFMA {:.1} TFLOP/s", self.fp32_ffma_tflops),
            ),
            m(
                "fp16_hfma2",
                Compute,
                self.fp16_hfma2_tflops,
                "TFLOP/s",
                format!("fp16 HFMA2 {:.1} TFLOP/s", self.fp16_hfma2_tflops),
            ),
            m(
                "launch_floor_single",
                Latency,
                self.launch_single_us,
                "us",
                format!("one launch {:.1} us", self.launch_single_us),
            ),
            m(
                "launch_floor_graph",
                Latency,
                self.launch_graph_us,
                "us",
                format!("graph launch {:.2} us", self.launch_graph_us),
            ),
            m(
                "launch_floor_kernel",
                Latency,
                self.launch_kernel_us,
                "us",
                format!("one kernel {:.2} us", self.launch_kernel_us),
            ),
            d(
                "datasheet_hbm",
                Memory,
                ds.mem_bandwidth_gbs,
                "GB/s",
                format!("datasheet HBM {:.2} TB/s", ds.mem_bandwidth_gbs / 1e3),
            ),
            d(
                "datasheet_tensor_fp16",
                Compute,
                ds.fp16_tensor_tflops,
                "TFLOP/s",
                format!("datasheet fp16 {:.0} TFLOP/s", ds.fp16_tensor_tflops),
            ),
            d(
                "datasheet_fp32",
                Compute,
                ds.fp32_tflops,
                "TFLOP/s",
                format!("datasheet FP32 {:.1} TFLOP/s", ds.fp32_tflops),
            ),
        ]
    }

    /// Ridge points (FLOP/byte) of each compute roof over each memory roof.
    pub fn ridge_points(&self) -> Vec<(String, f64)> {
        let computes = [
            ("cuBLAS fp16", self.tensor_cublas_fp16_tflops),
            ("WMMA", self.tensor_wmma_tflops),
            ("FP32 FFMA", self.fp32_ffma_tflops),
        ];
        let memories = [
            ("HBM copy", self.hbm_copy_gbs),
            ("L2 read", self.l2_read_gbs),
        ];
        let mut out = Vec::new();
        for (c, t) in computes {
            for (m, g) in memories {
                out.push((format!("{c} / {m}"), ridge_point(t, g)));
            }
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use approx::assert_relative_eq;

    pub fn sample() -> MeasuredCeilings {
        MeasuredCeilings {
            device: "NVIDIA H200".into(),
            driver: "580.159.04".into(),
            cuda_driver: "13.0".into(),
            date: "2026-11-29T00:00:00Z".into(),
            sm_clock_mhz_during: Some(1980),
            hbm_copy_gbs: 4250.0,
            hbm_read_gbs: 4400.0,
            l2_read_gbs: 10000.0,
            tensor_cublas_fp16_tflops: 750.0,
            tensor_cublas_bf16_tflops: 760.0,
            tensor_wmma_tflops: 640.0,
            fp32_ffma_tflops: 60.0,
            fp16_hfma2_tflops: 120.0,
            launch_single_us: 7.9,
            launch_graph_us: 1.5,
            launch_kernel_us: 2.5,
            method: vec![],
        }
    }

    #[test]
    fn ridge_points_by_hand() {
        let r = sample().ridge_points();
        let get = |k: &str| r.iter().find(|(n, _)| n == k).unwrap().1;
        // 750e12 / 4250e9 = 176.47 FLOP/byte
        assert_relative_eq!(
            get("cuBLAS fp16 / HBM copy"),
            176.470588,
            max_relative = 1e-6
        );
        assert_relative_eq!(get("FP32 FFMA / L2 read"), 6.0);
        assert_eq!(r.len(), 6);
    }

    #[test]
    fn roofs_pick_the_timing_floor() {
        let c = sample();
        assert_relative_eq!(c.roofs(TimingMode::Launch).latency_ms, 0.0079);
        assert_relative_eq!(c.roofs(TimingMode::Graph).latency_ms, 0.0015);
        assert_relative_eq!(c.roofs(TimingMode::Kernel).latency_ms, 0.0025);
        assert_eq!(c.roofs(TimingMode::Graph).hbm_gbs, 4250.0);
    }
}
