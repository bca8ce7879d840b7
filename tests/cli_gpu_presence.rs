//! `roofline info` without a GPU exits 2 with a clear message; with one, it shows the device.
//! Runs everywhere: CI (no GPU) checks the first path, the GPU machine the second.

use assert_cmd::Command;

fn has_driver() -> bool {
    ["/dev/nvidiactl", "/dev/nvidia0"]
        .iter()
        .any(|p| std::path::Path::new(p).exists())
}

fn roofline() -> Command {
    match std::env::var("ROOFLINE_BIN") {
        Ok(p) => Command::new(p),
        Err(_) => Command::cargo_bin("roofline").unwrap(),
    }
}

#[test]
fn info_reports_no_gpu_clearly_or_the_device() {
    let out = roofline().arg("info").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if has_driver() {
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stdout.contains("SMs") && stdout.contains("ridge point"),
            "{stdout}"
        );
    } else {
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("no CUDA GPU"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn device_index_out_of_range_or_no_gpu_exits_2() {
    let out = roofline()
        .args(["--device", "99", "info"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no CUDA GPU") || stderr.contains("--device 99 does not exist"),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_injected_kernel_fault_is_reported_with_kernel_and_shape() {
    let out = roofline()
        .args(["--debug-inject-fault", "bench", "relu", "--elems", "1000"])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("relu") && stderr.contains("1000 elems"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ILLEGAL_ADDRESS") || stderr.contains("illegal"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ctrl_c_during_a_sweep_keeps_what_was_measured() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("partial.json");
    let bin =
        std::env::var("ROOFLINE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_roofline").into());
    let mut child = std::process::Command::new(bin)
        .args(["sweep", "elementwise", "--quick", "--out"])
        .arg(&out)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the second measured case (a line per case), then interrupt.
    let mut measured = 0;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.contains(" ms ") && line.contains("GB/s") {
            measured += 1;
            if measured == 2 {
                std::process::Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status()
                    .unwrap();
            }
        }
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit status after Ctrl-C");
    let saved = roofline_lab::results::ResultsFile::load(&out).expect("partial results written");
    assert!(saved.records.len() >= 2, "{} records", saved.records.len());
    assert!(
        saved.records.len() < 20,
        "the sweep should have stopped early"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemm_gelu_plain_is_timed_beside_the_fused_kernel_and_compared() {
    // A shape off every tile (odd M, N % 8 == 0 but not a tile multiple, K off the k-tile).
    let out = roofline()
        .args([
            "bench",
            "gemm-gelu",
            "--m",
            "33",
            "--n",
            "136",
            "--k",
            "72",
            "--impl",
            "fused,unfused,plain",
            "--interleave",
            "--min-time-ms",
            "10",
            "--max-time-ms",
            "50",
            "--json",
        ])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let recs = v["records"].as_array().expect("records");
    let kinds: Vec<(String, String, bool)> = recs
        .iter()
        .map(|r| {
            (
                r["kernel"].as_str().unwrap().to_string(),
                r["impl"].as_str().unwrap().to_string(),
                r["verified"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    for want in [
        ("gemm_bias_gelu", "ours"),
        ("gemm_bias_gelu", "unfused"),
        ("hgemm", "ours"),
    ] {
        assert!(
            kinds
                .iter()
                .any(|(k, i, ok)| k == want.0 && i == want.1 && *ok),
            "no verified {want:?} record in {kinds:?}"
        );
    }
    for imp in ["ours", "unfused"] {
        let line = format!("gemm_bias_gelu {imp}");
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&line) && l.contains("x the time of our plain GEMM")),
            "no fused/plain ratio for {imp}: {stderr}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sweep_llm_quick_verifies_ours_and_cublas_at_each_shape() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("llm.json");
    let run = roofline()
        .args([
            "sweep",
            "llm",
            "--quick",
            "--min-time-ms",
            "5",
            "--max-time-ms",
            "30",
            "--out",
        ])
        .arg(&out)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let saved = roofline_lab::results::ResultsFile::load(&out).expect("results written");
    let shapes = roofline_lab::sweeps::llm_shapes(true);
    assert_eq!(saved.records.len(), 2 * shapes.len(), "{stderr}");
    for (m, n, k) in shapes {
        for imp in ["ours", "cublas"] {
            let r = saved
                .records
                .iter()
                .find(|r| {
                    r.impl_ == imp
                        && r.shape == roofline_lab::results::schema::Shape::Gemm { m, n, k }
                })
                .unwrap_or_else(|| panic!("no {imp} record at {m}x{n}x{k}"));
            assert!(
                r.experiment == "llm" && r.kernel == "hgemm" && r.dtype == "fp16",
                "{r:?}"
            );
            assert!(r.verified, "{imp} {m}x{n}x{k} not verified: {r:?}");
            assert!(r.cache == "cold" && r.timing == "kernel", "{r:?}");
            assert!(r.median_ms > 0.0 && r.tflops > 0.0, "{r:?}");
        }
    }
    // `roofline plot` draws the sweep's chart from the file.
    let charts = dir.path().join("charts");
    let plot = roofline()
        .args(["plot"])
        .arg(&out)
        .arg("--out")
        .arg(&charts)
        .output()
        .unwrap();
    assert_eq!(plot.status.code(), Some(0));
    assert!(charts.join("llm.svg").is_file());
}
