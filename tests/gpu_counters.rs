//! GPU tests of `--counters` (need a CUDA GPU and Nsight Compute, found as bench finds it:
//! ROOFLINE_NCU, PATH, /usr/local/cuda/bin/ncu).
//!
//! - a 1 x 4096 x 4096 GEMV cold reads W once: measured DRAM bytes within 10% of the model;
//!   hot, W (32 MiB) sits in L2 and DRAM reads fall far below cold's;
//! - a 4096³ HGEMM counts 2·4096³ FLOPs: this confirms the tensor-op assumption in
//!   src/counters/metrics.rs (TENSOR_FLOPS_PER_OP).

use assert_cmd::Command;
use serde_json::Value;

fn roofline() -> Command {
    match std::env::var("ROOFLINE_BIN") {
        Ok(p) => Command::new(p),
        Err(_) => Command::cargo_bin("roofline").unwrap(),
    }
}

/// `bench ARGS --counters`, its records (JSON) and stderr.
fn bench_counters(args: &[&str]) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let o = roofline()
        .arg("bench")
        .args(args)
        .args(["--counters", "--max-time-ms", "200", "--out"])
        .arg(&out)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("ncu) not found"),
        "these tests need ncu: {err}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (v["records"].as_array().unwrap().clone(), err)
}

fn num(r: &Value, field: &str) -> f64 {
    r[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} missing in {r}"))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gemv_cold_reads_the_model_bytes_and_hot_reads_from_l2() {
    let shape = [
        "gemv", "--m", "1", "--n", "4096", "--k", "4096", "--impl", "ours",
    ];
    let (cold, err) = bench_counters(&[&shape[..], &["--cold"]].concat());
    let c = &cold[0];
    let ratio = num(c, "dram_bytes_measured") / num(c, "bytes");
    assert!(
        (0.9..=1.1).contains(&ratio),
        "cold: {ratio:.3} of the model\n{c}\n{err}"
    );
    assert!(num(c, "dram_bytes_read") > 0.0 && num(c, "dram_bytes_write") >= 0.0);
    assert!(num(c, "counters_kernels") >= 1.0);
    assert!(c.get("l2_hit_rate").is_some(), "{c}");

    let (hot, err) = bench_counters(&[&shape[..], &["--hot"]].concat());
    let h = &hot[0];
    let (hot_read, cold_read) = (num(h, "dram_bytes_read"), num(c, "dram_bytes_read"));
    assert!(
        hot_read < 0.5 * cold_read,
        "hot read {hot_read} bytes from DRAM, cold {cold_read}: no L2 effect\n{h}\n{err}"
    );
    assert!(num(h, "l2_hit_rate") > num(c, "l2_hit_rate"), "{h}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn hgemm_4096_counts_the_models_flops() {
    let (recs, err) = bench_counters(&["hgemm", "--m", "4096", "--n", "4096", "--k", "4096"]);
    let model = 2.0 * 4096f64.powi(3);
    for r in &recs {
        let f = num(r, "flops_measured");
        assert!(
            (f / model - 1.0).abs() < 0.05,
            "{} {}: {f:.4e} FLOPs counted, model {model:.4e} (ratio {:.3}; 0.5 would mean a \
             tensor op is an FMA: TENSOR_FLOPS_PER_OP = 2)\n{err}",
            r["kernel"],
            r["impl"],
            f / model
        );
    }
}

/// Ours and cuBLAS profiled in one ncu run (one process per cache mode, the rows split at the
/// probe's marker kernels): each record gets its own kernels only. Cold, each GEMV reads W
/// once, so a split that gave one case the other's kernels would show about twice the bytes
/// on one and none on the other.
#[test]
#[ignore = "needs a CUDA GPU"]
fn cases_sharing_one_ncu_run_get_their_own_kernels() {
    let (recs, err) = bench_counters(&[
        "gemv",
        "--m",
        "1",
        "--n",
        "4096",
        "--k",
        "4096",
        "--impl",
        "ours,cublas",
        "--cold",
    ]);
    assert_eq!(recs.len(), 2, "{err}");
    assert_eq!(
        err.matches("in one ncu run").count(),
        1,
        "one ncu run for both cases\n{err}"
    );
    for r in &recs {
        let ratio = num(r, "dram_bytes_measured") / num(r, "bytes");
        assert!(
            (0.9..=1.1).contains(&ratio),
            "{} {}: {ratio:.3} of the model\n{r}\n{err}",
            r["kernel"],
            r["impl"]
        );
        assert!(num(r, "counters_kernels") >= 1.0, "{r}");
    }
}
