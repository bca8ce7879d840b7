//! GPU test: the first kernel through the whole pipeline (nvcc -> static lib -> bindgen FFI ->
//! safe wrapper) copies bit-exactly at awkward sizes.

use roofline_lab::gpu::Gpu;
use roofline_lab::kernels::copy::CopyCase;
use roofline_lab::measure::BenchCase;

#[test]
#[ignore = "needs a CUDA GPU"]
fn copy_is_bit_exact_at_odd_sizes_for_every_variant() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let variants = CopyCase::variants();
    assert!(variants.len() >= 2, "copy variants: {variants:?}");
    for (v, _) in variants {
        for bytes in [2u64, 18, 1000, 4098, (1 << 20) + 6, 64 << 20] {
            let mut case = CopyCase::new(bytes, v, bytes + v as u64);
            let check = case.verify(&gpu).expect("copy runs");
            assert!(check.passed, "copy v{v} {bytes} B: {}", check.detail);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_properties_are_sane() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let p = gpu.props();
    assert!(
        p.sm_count > 0 && p.l2_bytes > 0 && p.memory_bytes > 0,
        "{p:?}"
    );
    assert!(p.compute_capability.0 >= 7, "{p:?}");
}
