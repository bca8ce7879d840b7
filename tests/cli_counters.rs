//! `--counters` and the hidden `probe-case` on the command line. Without a GPU: the "ncu not
//! found" line comes before the GPU is opened, and probe-case validates its request first.
//! On the GPU machine (the bundle) the first test runs a short bench without ncu as well.

use assert_cmd::Command;
use std::process::Output;

fn roofline() -> Command {
    match std::env::var("ROOFLINE_BIN") {
        Ok(p) => Command::new(p),
        Err(_) => Command::cargo_bin("roofline").unwrap(),
    }
}

fn has_driver() -> bool {
    std::path::Path::new("/dev/nvidiactl").exists()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const NOT_FOUND: &str = "--counters: Nsight Compute (ncu) not found; records carry no counters";

#[test]
fn without_ncu_counters_says_so_once_and_goes_on() {
    let o = roofline()
        .env("ROOFLINE_NCU", "/nonexistent/ncu")
        .args([
            "bench",
            "relu",
            "--elems",
            "4099",
            "--counters",
            "--min-time-ms",
            "20",
            "--max-time-ms",
            "50",
            "--json",
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(err.matches(NOT_FOUND).count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    if has_driver() {
        assert_eq!(o.status.code(), Some(0), "{err}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("\"records\"") && !out.contains("dram_bytes"),
            "{out}"
        );
    } else {
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("no CUDA GPU"), "{err}");
    }
}

#[test]
fn probe_case_is_hidden_and_checks_its_request_before_the_gpu() {
    let help = roofline().arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(!String::from_utf8_lossy(&help.stdout).contains("probe-case"));
    let bench_help = roofline().args(["bench", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&bench_help.stdout).contains("--counters"));

    // gemv's defaults are ours and cuBLAS: cases 0 and 1.
    let o = roofline()
        .args(["probe-case", "gemv", "--m", "1", "--case", "2"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--case 2") && err.contains("2 case(s)"),
        "{err}"
    );
    assert!(!err.contains("no CUDA GPU"), "{err}");

    let o = roofline().args(["probe-case", "softmax"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a kernel family"), "{}", stderr(&o));

    // Several cases after `--`: each request is checked before the GPU, and one run has one
    // cache mode.
    let o = roofline()
        .args([
            "probe-case",
            "gemv",
            "--m",
            "1",
            "--cold",
            "--case",
            "0",
            "--",
        ])
        .args([
            "hgemm", "--m", "64", "--n", "64", "--k", "64", "--cold", "--case", "2",
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--case 2") && err.contains("2 case(s)"),
        "{err}"
    );
    let o = roofline()
        .args(["probe-case", "gemv", "--cold", "--", "relu", "--hot"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("share a cache mode"), "{}", stderr(&o));
    let o = roofline()
        .args(["probe-case", "gemv", "--cold", "--", "relu", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("relu --bogus: unexpected argument"),
        "{}",
        stderr(&o)
    );
    let o = roofline()
        .args(["probe-case", "gemv", "--cold", "--", "--", "relu"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty case"), "{}", stderr(&o));

    if !has_driver() {
        let o = roofline()
            .args(["probe-case", "gemv", "--m", "1", "--cold", "--"])
            .args(["relu", "--elems", "4099", "--cold"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("no CUDA GPU"), "{}", stderr(&o));
        let o = roofline()
            .args(["probe-case", "relu", "--elems", "4099", "--hot"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("no CUDA GPU"), "{}", stderr(&o));
    }
}
