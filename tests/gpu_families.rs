//! GPU tests over the registry: every family's check, and a bench of the newest family
//! through the CLI.

use roofline_lab::registry;

/// Every registered family, every variant, at its fixed check shapes and 8 random ones,
/// verified on the GPU against its references: what `roofline check` runs, from the registry;
/// in fp16 every family, in bf16 the GEMM families' bf16 forms (`check --dtype bf16`).
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_registered_family_passes_its_check_on_the_gpu() {
    use roofline_lab::dtype::Dtype;
    let gpu = roofline_lab::gpu::Gpu::open(0).expect("a CUDA GPU");
    let mut failures = Vec::new();
    for (&f, dtype) in registry::ALL
        .iter()
        .flat_map(|f| Dtype::ALL.map(|d| (f, d)))
    {
        for mut c in roofline_lab::check::cases(f, 8, 11, dtype) {
            let name = c.id().describe();
            match c.verify(&gpu) {
                Ok(v) if v.passed => {}
                Ok(v) => failures.push(format!("{name}: {}", v.detail)),
                Err(e) => failures.push(format!("{name}: error {e:#}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A bench of the new family through the CLI writes a verified record with the family's name
/// and the work model's bytes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn add_rmsnorm_bench_writes_a_verified_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let bin = std::env::var("ROOFLINE_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_roofline").to_string());
    let st = std::process::Command::new(bin)
        .args([
            "bench",
            "add_rmsnorm",
            "--rows",
            "4096",
            "--hidden",
            "4096",
            "--graph",
        ])
        .args(["--max-time-ms", "200", "--out", out.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(st.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let r = &v["records"][0];
    assert_eq!(r["kernel"], "add_rmsnorm");
    assert_eq!(r["verified"], true, "{r}");
    let bytes = r["bytes"].as_f64().unwrap();
    assert_eq!(bytes, 2.0 * (4.0 * 4096.0 * 4096.0 + 4096.0));
}
