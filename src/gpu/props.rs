//! Device properties read from the driver once at start.

use cudarc::driver::sys::CUdevice_attribute as A;
use cudarc::driver::CudaContext;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeviceProps {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sm_count: u32,
    pub l2_bytes: u64,
    pub memory_bytes: u64,
    /// Bits; None when the driver no longer reports it.
    pub memory_bus_width_bits: Option<u32>,
    /// Peak memory clock in MHz (driver attribute; None when not reported).
    pub memory_clock_mhz: Option<u32>,
    /// Peak SM clock in MHz.
    pub sm_clock_mhz: Option<u32>,
    /// CUDA version the driver supports, e.g. 13000.
    pub driver_cuda_version: i32,
    /// NVIDIA driver release, e.g. "580.159.04" (from NVML; None when NVML is missing).
    pub driver_release: Option<String>,
    /// Shared memory per SM, bytes.
    pub smem_per_sm: u64,
}

impl DeviceProps {
    pub fn read(ctx: &Arc<CudaContext>, driver_cuda_version: i32) -> anyhow::Result<Self> {
        let attr = |a: A| ctx.attribute(a);
        let positive = |a: A| attr(a).ok().filter(|v| *v > 0).map(|v| v as u32);
        Ok(DeviceProps {
            ordinal: ctx.ordinal(),
            name: ctx.name()?,
            compute_capability: ctx.compute_capability()?,
            sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            l2_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
            memory_bytes: ctx.total_mem()? as u64,
            memory_bus_width_bits: positive(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
            memory_clock_mhz: positive(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).map(|k| k / 1000),
            sm_clock_mhz: positive(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).map(|k| k / 1000),
            driver_cuda_version,
            driver_release: crate::measure::clocks::driver_release(),
            smem_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)? as u64,
        })
    }

    /// Theoretical DRAM bandwidth from bus width and clock (GB/s), when both are known.
    /// DDR: two transfers per clock.
    pub fn theoretical_bandwidth_gbs(&self) -> Option<f64> {
        let bits = self.memory_bus_width_bits? as f64;
        let mhz = self.memory_clock_mhz? as f64;
        Some(2.0 * mhz * 1e6 * bits / 8.0 / 1e9)
    }

    pub fn cuda_version_string(v: i32) -> String {
        format!("{}.{}", v / 1000, (v % 1000) / 10)
    }
}
