//! GPU test: the tool's figures agree within 5% with measurements made outside its engine
//! (Nsight Compute's kernel durations of our calls; the library calls made directly by
//! scripts/direct_blas.py and timed do_bench-style, with ncu and PyTorch shown beside them):
//! scripts/crosscheck.py --quick. Needs python3, ncu and PyTorch on the GPU machine (the H200
//! machine has them).

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "needs a CUDA GPU, Nsight Compute and PyTorch"]
fn the_tools_figures_agree_with_independent_measurements() {
    // The crate's copy, else the repository root or its parent (bundle/run-gpu-tests.sh
    // runs from bundle/).
    let script = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/crosscheck.py"),
        Path::new("scripts/crosscheck.py").to_path_buf(),
        Path::new("../scripts/crosscheck.py").to_path_buf(),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .expect("scripts/crosscheck.py (run from the repository root or bundle/)");
    let bin =
        std::env::var("ROOFLINE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_roofline").into());
    let out = Command::new("python3")
        .arg(&script)
        .arg("--quick")
        .env("ROOFLINE_BIN", bin)
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "cross-check failed:\n{text}");
    assert!(text.contains("| ok |"), "no case was compared:\n{text}");
}
