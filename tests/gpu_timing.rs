//! GPU tests of the timing modes and of throttle-aware sampling: each mode gives a figure
//! with its name and bookkeeping, `kernel` timing leaves out the host's launch latency, and
//! a power-heavy GEMM is judged sample by sample (clean samples counted, status set).

use roofline_lab::gpu::Gpu;
use roofline_lab::kernels::cublas_gemm::{CublasGemmCase, Dtype};
use roofline_lab::kernels::elementwise::{self, ElementwiseCase, Op};
use roofline_lab::measure::{
    measure, CacheMode, MeasureConfig, SampleStatus, StopRule, TimingMode,
};

fn cfg(timing: TimingMode, cache: CacheMode) -> MeasureConfig {
    MeasureConfig {
        timing,
        cache,
        stop: StopRule {
            min_samples: 20,
            max_samples: 400,
            min_time_ms: 20.0,
            max_time_ms: 300.0,
            target_noise: 0.01,
            median_precision: 0.002,
        },
        warmup_ms: 5.0,
        ..MeasureConfig::default()
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_timing_mode_measures_and_kernel_timing_drops_the_launch_latency() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    // A small ReLU (1 Mi elements, ~5 µs): launch latency is most of a `launch` figure.
    let mut medians = Vec::new();
    for timing in [TimingMode::Kernel, TimingMode::Launch, TimingMode::Graph] {
        for cache in [CacheMode::Cold, CacheMode::Hot] {
            let mut c = ElementwiseCase::new(Op::Relu, 1 << 20, elementwise::best(), 7);
            let m = measure(&gpu, &mut c, &cfg(timing, cache)).expect("measures");
            assert_eq!((m.timing, m.cache), (timing, cache));
            assert!(
                m.stats.n >= 20 && m.stats.median > 0.0,
                "{timing:?}: {:?}",
                m.stats
            );
            assert!(m.status != SampleStatus::Sustained);
            assert!((0.0..=1.0).contains(&m.throttled_fraction));
            assert_eq!(
                m.launches_per_sample > 1,
                timing == TimingMode::Graph,
                "graph timing replays many launches per sample"
            );
            medians.push((timing, cache, m.stats.median));
        }
    }
    let med = |t, c| medians.iter().find(|m| m.0 == t && m.1 == c).unwrap().2;
    let (kernel, launch) = (
        med(TimingMode::Kernel, CacheMode::Hot),
        med(TimingMode::Launch, CacheMode::Hot),
    );
    assert!(
        kernel < launch,
        "kernel timing ({kernel} ms) must leave out the launch latency in launch timing ({launch} ms)"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_gemm_is_judged_sample_by_sample_and_sustained_keeps_everything() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut c = CublasGemmCase::new(4096, 4096, 4096, Dtype::F16, 3);
    let clean = measure(&gpu, &mut c, &cfg(TimingMode::Kernel, CacheMode::Cold)).unwrap();
    // With NVML (always on the test machine) samples are judged: clean ones are counted and
    // the status says what the median is.
    assert!(
        matches!(clean.status, SampleStatus::Clean | SampleStatus::Throttled),
        "{:?}",
        clean.status
    );
    if clean.status == SampleStatus::Clean {
        assert_eq!(clean.clean_samples, clean.stats.n);
        let c = clean.clocks.as_ref().expect("clocks of the kept samples");
        assert!(
            c.throttle.is_empty(),
            "clean samples carry no slowdown: {c:?}"
        );
    }
    let sustained_cfg = MeasureConfig {
        sustained: true,
        ..cfg(TimingMode::Kernel, CacheMode::Cold)
    };
    let s = measure(&gpu, &mut c, &sustained_cfg).unwrap();
    assert_eq!(s.status, SampleStatus::Sustained);
    assert_eq!(s.samples_ms.len(), s.stats.n);
}
