//! `roofline info`: the device, its datasheet ceilings and ridge point.

use crate::datasheet;
use crate::gpu::{DeviceProps, Gpu};
use anyhow::Result;
use comfy_table::Table;
use serde::Serialize;

#[derive(Serialize)]
struct InfoJson<'a> {
    device: &'a DeviceProps,
    datasheet: &'a datasheet::Datasheet,
    ridge_fp16_flop_per_byte: f64,
    ridge_fp32_flop_per_byte: f64,
    built_with_cuda: String,
}

pub fn run(device: usize, json: bool) -> Result<()> {
    let gpu = Gpu::open(device)?;
    let p = gpu.props();
    let ds = datasheet::for_device(p);
    if json {
        let out = InfoJson {
            device: p,
            datasheet: &ds,
            ridge_fp16_flop_per_byte: ds.ridge_fp16(),
            ridge_fp32_flop_per_byte: ds.ridge_fp32(),
            built_with_cuda: DeviceProps::cuda_version_string(crate::gpu::built_cuda_version()),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let opt = |v: Option<u32>, unit: &str| {
        v.map_or("not reported".to_string(), |x| format!("{x} {unit}"))
    };
    let mut t = Table::new();
    t.set_header(vec!["property", "value"]);
    let rows: Vec<(&str, String)> = vec![
        ("device", format!("{} (index {})", p.name, p.ordinal)),
        (
            "compute capability",
            format!("{}.{}", p.compute_capability.0, p.compute_capability.1),
        ),
        ("SMs", p.sm_count.to_string()),
        ("L2 cache", format!("{:.1} MiB", mib(p.l2_bytes))),
        (
            "memory",
            format!("{:.1} GiB", p.memory_bytes as f64 / (1u64 << 30) as f64),
        ),
        (
            "memory bus",
            p.memory_bus_width_bits
                .map_or("not reported".into(), |b| format!("{b} bit")),
        ),
        ("memory clock (peak)", opt(p.memory_clock_mhz, "MHz")),
        ("SM clock (peak)", opt(p.sm_clock_mhz, "MHz")),
        (
            "shared memory per SM",
            format!("{} KiB", p.smem_per_sm / 1024),
        ),
        (
            "driver",
            format!(
                "{} (CUDA {})",
                p.driver_release
                    .clone()
                    .unwrap_or_else(|| "release unknown (no NVML)".into()),
                DeviceProps::cuda_version_string(p.driver_cuda_version)
            ),
        ),
        (
            "kernels built with",
            format!(
                "CUDA {}",
                DeviceProps::cuda_version_string(crate::gpu::built_cuda_version())
            ),
        ),
    ];
    for (k, v) in rows {
        t.add_row(vec![k.to_string(), v]);
    }
    println!("{t}");
    let mut d = Table::new();
    let src = if ds.estimated {
        "estimate from properties"
    } else {
        "datasheet"
    };
    d.set_header(vec!["ceiling", &format!("{} ({src})", ds.model)]);
    d.add_row(vec![
        "fp16 Tensor Core (dense)".to_string(),
        format!("{:.1} TFLOP/s", ds.fp16_tensor_tflops),
    ]);
    d.add_row(vec![
        "bf16 Tensor Core (dense)".to_string(),
        format!("{:.1} TFLOP/s", ds.bf16_tensor_tflops),
    ]);
    d.add_row(vec![
        "FP32".to_string(),
        format!("{:.1} TFLOP/s", ds.fp32_tflops),
    ]);
    d.add_row(vec![
        "memory bandwidth".to_string(),
        format!("{:.0} GB/s", ds.mem_bandwidth_gbs),
    ]);
    d.add_row(vec!["L2".to_string(), format!("{:.0} MiB", ds.l2_mib)]);
    d.add_row(vec![
        "ridge point fp16".to_string(),
        format!("{:.0} FLOP/byte", ds.ridge_fp16()),
    ]);
    d.add_row(vec![
        "ridge point FP32".to_string(),
        format!("{:.1} FLOP/byte", ds.ridge_fp32()),
    ]);
    println!("{d}");
    println!("Measured ceilings: `roofline ceilings`.");
    Ok(())
}
