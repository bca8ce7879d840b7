//! Vendor datasheet ceilings for known GPUs, and an estimate from device properties for the
//! rest. Dense (non-sparse) Tensor Core rates with fp32 accumulation, boost clocks.

use crate::gpu::DeviceProps;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Datasheet {
    pub model: String,
    pub fp16_tensor_tflops: f64,
    pub bf16_tensor_tflops: f64,
    pub fp32_tflops: f64,
    pub mem_bandwidth_gbs: f64,
    pub l2_mib: f64,
    /// True when computed from properties rather than read from the table.
    pub estimated: bool,
}

impl Datasheet {
    /// FLOP per byte where the fp16 Tensor Core roof meets the memory roof.
    pub fn ridge_fp16(&self) -> f64 {
        ridge_point(self.fp16_tensor_tflops, self.mem_bandwidth_gbs)
    }
    pub fn ridge_fp32(&self) -> f64 {
        ridge_point(self.fp32_tflops, self.mem_bandwidth_gbs)
    }
}

/// Ops:byte ridge point of a compute roof (TFLOP/s) and a memory roof (GB/s).
pub fn ridge_point(tflops: f64, gbs: f64) -> f64 {
    tflops * 1e12 / (gbs * 1e9)
}

struct Row {
    model: &'static str,
    fp16: f64,
    fp32: f64,
    bw: f64,
    l2_mib: f64,
}

/// From NVIDIA's datasheets (dense rates).
const TABLE: &[Row] = &[
    Row {
        model: "A100 40GB",
        fp16: 312.0,
        fp32: 19.5,
        bw: 1555.0,
        l2_mib: 40.0,
    },
    Row {
        model: "A100 80GB",
        fp16: 312.0,
        fp32: 19.5,
        bw: 2039.0,
        l2_mib: 40.0,
    },
    Row {
        model: "H100 SXM",
        fp16: 989.4,
        fp32: 66.9,
        bw: 3350.0,
        l2_mib: 50.0,
    },
    Row {
        model: "H100 PCIe",
        fp16: 756.5,
        fp32: 51.2,
        bw: 2000.0,
        l2_mib: 50.0,
    },
    Row {
        model: "H200",
        fp16: 989.4,
        fp32: 66.9,
        bw: 4800.0,
        l2_mib: 60.0,
    },
    Row {
        model: "L4",
        fp16: 121.0,
        fp32: 30.3,
        bw: 300.0,
        l2_mib: 48.0,
    },
    Row {
        model: "RTX 4090",
        fp16: 165.2,
        fp32: 82.6,
        bw: 1008.0,
        l2_mib: 72.0,
    },
];

/// Maps a device name (as the driver reports it) and its memory size to a table row.
fn model_for(name: &str, memory_bytes: u64) -> Option<&'static str> {
    let n = name.to_ascii_uppercase();
    let words: Vec<&str> = n
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let gib = memory_bytes as f64 / (1u64 << 30) as f64;
    if has("H200") {
        Some("H200")
    } else if has("H100") {
        Some(if has("PCIE") { "H100 PCIe" } else { "H100 SXM" })
    } else if has("A100") {
        Some(if gib > 48.0 { "A100 80GB" } else { "A100 40GB" })
    } else if has("L4") {
        Some("L4")
    } else if has("4090") {
        Some("RTX 4090")
    } else {
        None
    }
}

pub fn lookup(name: &str, memory_bytes: u64) -> Option<Datasheet> {
    let model = model_for(name, memory_bytes)?;
    let r = TABLE.iter().find(|r| r.model == model)?;
    Some(Datasheet {
        model: r.model.to_string(),
        fp16_tensor_tflops: r.fp16,
        bf16_tensor_tflops: r.fp16,
        fp32_tflops: r.fp32,
        mem_bandwidth_gbs: r.bw,
        l2_mib: r.l2_mib,
        estimated: false,
    })
}

/// Dense fp16 Tensor Core and FP32 FLOP per clock per SM, by architecture.
fn per_sm_per_clock(cc: (i32, i32)) -> (f64, f64) {
    match cc {
        (9, _) => (4096.0, 256.0),
        (10, _) | (11, _) => (8192.0, 256.0),
        (8, 0) => (2048.0, 128.0),
        (8, _) | (12, _) => (1024.0, 256.0),
        (7, _) => (1024.0, 128.0),
        _ => (512.0, 128.0),
    }
}

/// An estimate from SM count, clocks and bus width, for GPUs not in the table.
pub fn estimate(p: &DeviceProps) -> Datasheet {
    let (tc, fp32) = per_sm_per_clock(p.compute_capability);
    let ghz = p.sm_clock_mhz.unwrap_or(1500) as f64 / 1000.0;
    let tflops = |per: f64| p.sm_count as f64 * per * ghz / 1000.0;
    Datasheet {
        model: format!("{} (estimated)", p.name),
        fp16_tensor_tflops: tflops(tc),
        bf16_tensor_tflops: tflops(tc),
        fp32_tflops: tflops(fp32),
        mem_bandwidth_gbs: p.theoretical_bandwidth_gbs().unwrap_or(1000.0),
        l2_mib: p.l2_bytes as f64 / (1u64 << 20) as f64,
        estimated: true,
    }
}

pub fn for_device(p: &DeviceProps) -> Datasheet {
    lookup(&p.name, p.memory_bytes).unwrap_or_else(|| estimate(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    const GIB: u64 = 1 << 30;

    #[test]
    fn known_names_map_to_rows() {
        let cases = [
            ("NVIDIA H200", 141 * GIB, "H200"),
            ("NVIDIA H100 80GB HBM3", 80 * GIB, "H100 SXM"),
            ("NVIDIA H100 PCIe", 80 * GIB, "H100 PCIe"),
            ("NVIDIA A100-SXM4-40GB", 40 * GIB, "A100 40GB"),
            ("NVIDIA A100-SXM4-80GB", 80 * GIB, "A100 80GB"),
            ("NVIDIA L4", 24 * GIB, "L4"),
            ("NVIDIA GeForce RTX 4090", 24 * GIB, "RTX 4090"),
        ];
        for (name, mem, model) in cases {
            let d = lookup(name, mem).unwrap_or_else(|| panic!("{name} not found"));
            assert_eq!(d.model, model, "{name}");
            assert!(!d.estimated);
        }
        assert!(lookup("NVIDIA L40S", 48 * GIB).is_none(), "L40S is not L4");
        assert!(lookup("Tesla T4", 16 * GIB).is_none());
    }

    #[test]
    fn h200_ridge_point() {
        let d = lookup("NVIDIA H200", 141 * GIB).unwrap();
        // 989.4e12 / 4800e9 = 206.1 FLOP/byte
        assert_relative_eq!(d.ridge_fp16(), 206.125, epsilon = 1e-3);
        assert_relative_eq!(ridge_point(1.0, 1000.0), 1.0);
    }

    fn props(name: &str, cc: (i32, i32), sms: u32, mhz: u32) -> DeviceProps {
        DeviceProps {
            ordinal: 0,
            name: name.into(),
            compute_capability: cc,
            sm_count: sms,
            l2_bytes: 50 << 20,
            memory_bytes: 80 * GIB,
            memory_bus_width_bits: Some(5120),
            memory_clock_mhz: Some(2619),
            sm_clock_mhz: Some(mhz),
            driver_cuda_version: 13000,
            driver_release: None,
            smem_per_sm: 233472,
        }
    }

    #[test]
    fn unknown_gpu_is_estimated_from_properties() {
        let p = props("Mystery GPU", (9, 0), 132, 1830);
        let d = for_device(&p);
        assert!(d.estimated);
        assert!(d.model.contains("estimated"));
        // 132 SMs x 4096 FLOP/clk x 1.83 GHz = 989.4 TFLOP/s: the H100 SXM figure.
        assert_relative_eq!(d.fp16_tensor_tflops, 989.4, max_relative = 1e-3);
        // 2 x 2619 MHz x 5120 bits / 8 = 3352 GB/s.
        assert_relative_eq!(d.mem_bandwidth_gbs, 3352.3, max_relative = 1e-3);
        assert_relative_eq!(d.l2_mib, 50.0);
    }

    #[test]
    fn estimate_without_bus_width_still_gives_numbers() {
        let mut p = props("Mystery", (8, 0), 108, 1410);
        p.memory_bus_width_bits = None;
        let d = estimate(&p);
        assert!(d.mem_bandwidth_gbs > 0.0 && d.fp32_tflops > 0.0);
    }
}
