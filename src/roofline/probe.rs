//! Measuring the ceilings on this GPU (our copy/read/peak kernels plus cuBLAS), and caching
//! them per device so later commands place results without re-measuring.

use super::ceilings::MeasuredCeilings;
use crate::gpu::{DeviceProps, Gpu};
use crate::kernels::copy::{CopyCase, EmptyCase, L2ReadCase, ReadCase};
use crate::kernels::cublas_gemm::{CublasGemmCase, Dtype};
use crate::kernels::peak::{PeakCase, PeakKind};
use crate::measure::{measure, BenchCase, CacheMode, MeasureConfig, TimingMode};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Sizes of the probes. `quick` trades some precision for time (used by `report --quick`).
pub struct ProbePlan {
    pub copy_bytes: u64,
    pub l2_bytes: u64,
    pub gemm: u64,
}

impl ProbePlan {
    pub fn for_device(props: &DeviceProps, quick: bool) -> Self {
        // HBM probes: at least 16x L2 and 1 GiB; the L2 probe: an eighth of L2 (one
        // partition holds it with room to spare), a multiple of 16 KiB.
        let copy_bytes = (16 * props.l2_bytes).max(1 << 30);
        let l2_bytes = (props.l2_bytes / 8) / 16384 * 16384;
        ProbePlan {
            copy_bytes: if quick { copy_bytes / 2 } else { copy_bytes },
            l2_bytes: l2_bytes.max(1 << 20),
            gemm: if quick { 4096 } else { 8192 },
        }
    }
}

fn median_of(gpu: &Gpu, case: &mut dyn BenchCase, cfg: &MeasureConfig) -> Result<f64> {
    let id = case.id().describe();
    let m = measure(gpu, case, cfg).with_context(|| format!("measuring ceiling probe {id}"))?;
    for w in &m.warnings {
        eprintln!("warning: {id}: {w}");
    }
    Ok(m.stats.median)
}

pub fn measure_ceilings(gpu: &Gpu, quick: bool) -> Result<MeasuredCeilings> {
    let plan = ProbePlan::for_device(gpu.props(), quick);
    let cold = MeasureConfig::default();
    let hot = MeasureConfig {
        cache: CacheMode::Hot,
        ..cold
    };
    let graph = MeasureConfig {
        timing: TimingMode::Graph,
        ..hot
    };
    // Arithmetic ceilings: a short window from a rested GPU. Sustained matrix work trips the
    // board's power cap (sw_power_cap, seen on the H200) and the clock then wanders by 10-20%
    // from run to run; the peak is what the chip does before that. Records of long runs
    // carry their clocks, so throttling there stays visible.
    let burst_stop = crate::measure::StopRule {
        min_samples: 10,
        max_samples: 400,
        min_time_ms: 50.0,
        max_time_ms: 300.0,
        target_noise: 0.01,
        median_precision: 0.002,
    };
    let burst_cold = MeasureConfig {
        stop: burst_stop,
        ..cold
    };
    let burst_hot = MeasureConfig {
        stop: burst_stop,
        ..hot
    };
    let rest = || std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut method = Vec::new();
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;

    eprintln!(
        "measuring ceilings on {} (takes a few seconds) ...",
        gpu.props().name
    );
    // The copy ceiling is the best of our copy kernels (grid-stride and one-block-per-chunk).
    let mut hbm_copy_gbs = 0.0f64;
    let mut best_copy = 0;
    for (v, _) in CopyCase::variants().into_iter().filter(|(v, _)| *v >= 2) {
        let mut copy = CopyCase::new(plan.copy_bytes, v, 11);
        let check = copy.verify(gpu)?;
        anyhow::ensure!(
            check.passed,
            "the copy probe v{v} produced wrong data: {}",
            check.detail
        );
        let t = median_of(gpu, &mut copy, &cold)?;
        let gbs = copy.work_bytes() / (t * 1e-3) / 1e9;
        if gbs > hbm_copy_gbs {
            (hbm_copy_gbs, best_copy) = (gbs, v);
        }
    }
    method.push((
        "hbm_copy".into(),
        format!(
            "best copy kernel (v{best_copy}) of {:.2} GiB, read + written bytes, cold L2, median",
            gib(plan.copy_bytes)
        ),
    ));

    let mut read = ReadCase::new(plan.copy_bytes, 12);
    let t = median_of(gpu, &mut read, &cold)?;
    let hbm_read_gbs = read.bytes as f64 / (t * 1e-3) / 1e9;
    method.push((
        "hbm_read".into(),
        format!(
            "read-only reduction of {:.2} GiB, cold L2, median",
            gib(plan.copy_bytes)
        ),
    ));

    let mut l2 = L2ReadCase::new(plan.l2_bytes, 2);
    let t = median_of(gpu, &mut l2, &hot)?;
    let l2_read_gbs = l2.bytes_per_launch() / (t * 1e-3) / 1e9;
    method.push((
        "l2_read".into(),
        format!(
            "every block re-reads a {:.1} MiB working set (ld.global.cg), hot, median",
            plan.l2_bytes as f64 / (1u64 << 20) as f64
        ),
    ));

    let g = plan.gemm;
    let mut tensor = |dtype: Dtype| -> Result<f64> {
        let mut c = CublasGemmCase::new(g, g, g, dtype, 13);
        rest();
        let t = median_of(gpu, &mut c, &burst_cold)?;
        method.push((
            format!("tensor_cublas_{}", dtype.name()),
            format!(
                "cublasGemmEx {g}^3 {}, fp32 compute, random inputs, cold L2, median",
                dtype.name()
            ),
        ));
        Ok(c.work().flops / (t * 1e-3) / 1e12)
    };
    let fp16 = tensor(Dtype::F16)?;
    let bf16 = tensor(Dtype::Bf16)?;

    let mut peak = |kind: PeakKind, iters: i32, what: &str| -> Result<f64> {
        let mut c = PeakCase::new(kind, iters);
        rest();
        let t = median_of(gpu, &mut c, &burst_hot)?;
        method.push((
            match kind {
                PeakKind::Ffma => "fp32_ffma",
                PeakKind::Hfma2 => "fp16_hfma2",
                PeakKind::Wmma => "tensor_wmma",
            }
            .to_string(),
            what.to_string(),
        ));
        Ok(c.work().flops / (t * 1e-3) / 1e12)
    };
    let wmma = peak(
        PeakKind::Wmma,
        4096,
        "register-only WMMA 16x16x16 loop, 4 independent accumulators per warp, median of a 300 ms burst after 1.5 s idle",
    )?;
    let ffma = peak(
        PeakKind::Ffma,
        2048,
        "register-only FFMA loop, 8 chains per thread, median",
    )?;
    let hfma2 = peak(
        PeakKind::Hfma2,
        2048,
        "register-only HFMA2 loop, 8 chains per thread, median",
    )?;

    let single = MeasureConfig {
        timing: TimingMode::Launch,
        ..hot
    };
    let launch_single_us = median_of(gpu, &mut EmptyCase, &single)? * 1e3;
    let launch_graph_us = median_of(gpu, &mut EmptyCase, &graph)? * 1e3;
    let launch_kernel_us = median_of(gpu, &mut EmptyCase, &hot)? * 1e3;
    method.push((
        "launch_floor_single".into(),
        "empty kernel, events around one launch, median".into(),
    ));
    method.push((
        "launch_floor_graph".into(),
        "empty kernel, per launch inside a CUDA graph replay, median".into(),
    ));
    method.push((
        "launch_floor_kernel".into(),
        "empty kernel queued behind a blocking kernel, events around it, median".into(),
    ));

    let props = gpu.props();
    Ok(MeasuredCeilings {
        device: props.name.clone(),
        driver: props.driver_release.clone().unwrap_or_default(),
        cuda_driver: DeviceProps::cuda_version_string(props.driver_cuda_version),
        date: crate::session::now_rfc3339(),
        sm_clock_mhz_during: crate::measure::clocks::ClockReader::new(
            gpu.context().uuid()?.bytes.map(|b| b as u8),
        )
        .sample()
        .map(|s| s.sm_mhz),
        hbm_copy_gbs,
        hbm_read_gbs,
        l2_read_gbs,
        tensor_cublas_fp16_tflops: fp16,
        tensor_cublas_bf16_tflops: bf16,
        tensor_wmma_tflops: wmma,
        fp32_ffma_tflops: ffma,
        fp16_hfma2_tflops: hfma2,
        launch_single_us,
        launch_graph_us,
        launch_kernel_us,
        method,
    })
}

/// Where the ceilings of a device are cached: $ROOFLINE_CACHE_DIR, else the user cache.
pub fn cache_path(gpu: &Gpu) -> Result<PathBuf> {
    let base = std::env::var_os("ROOFLINE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME").map(|p| PathBuf::from(p).join("roofline-lab"))
        })
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/roofline-lab")))
        .unwrap_or_else(|| PathBuf::from(".roofline-cache"));
    Ok(base.join(format!("ceilings-{}.json", gpu_uuid(gpu)?)))
}

/// The GPU's UUID in hex: which physical GPU measured something.
pub fn gpu_uuid(gpu: &Gpu) -> Result<String> {
    Ok(gpu
        .context()
        .uuid()?
        .bytes
        .iter()
        .map(|b| format!("{:02x}", *b as u8))
        .collect())
}

/// Cached ceilings for this device when present (and readable), else measured and cached.
pub fn load_or_measure(gpu: &Gpu, refresh: bool, quick: bool) -> Result<MeasuredCeilings> {
    let path = cache_path(gpu)?;
    if !refresh {
        if let Some(c) = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<MeasuredCeilings>(&b).ok())
        {
            // Ceilings cached before `kernel` timing existed lack its floor: measure again.
            if c.device == gpu.props().name && c.launch_kernel_us > 0.0 {
                return Ok(c);
            }
        }
    }
    let c = measure_ceilings(gpu, quick)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    crate::results::write_atomic(&path, serde_json::to_string_pretty(&c)?.as_bytes())
        .with_context(|| format!("caching ceilings in {}", path.display()))?;
    Ok(c)
}
