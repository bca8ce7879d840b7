//! Bad input never reaches the GPU: every malformed or conflicting argument exits 2 with one
//! clear `error:` line naming the argument, and never a panic or a backtrace hint. On a
//! machine without a GPU driver this also proves the order: a bad argument must be reported
//! as itself, not as "no CUDA GPU".
//!
//! Also the CPU-only happy paths (`--help`, `--version`, `compare`, `plot`) and, where no
//! driver exists, that valid arguments do reach the GPU and fail there with "no CUDA GPU".
//! On the GPU machine the binary comes from `ROOFLINE_BIN` (the bundle).

use assert_cmd::Command;
use roofline_lab::kernels::{gemm, gemm_gelu};
use std::path::{Path, PathBuf};

const FIXTURE: &str = "tests/fixtures/results_small.json";

fn roofline() -> Command {
    match std::env::var("ROOFLINE_BIN") {
        Ok(p) => Command::new(p),
        Err(_) => Command::cargo_bin("roofline").unwrap(),
    }
}

fn has_driver() -> bool {
    Path::new("/dev/nvidiactl").exists()
}

/// The fixture, found from the crate root here or from the bundle's working directory.
fn fixture() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    if here.is_file() {
        return here;
    }
    // Run from bundle/ (run-gpu-tests.sh changes into it) inside a checkout.
    let up = Path::new("..").join(FIXTURE);
    if up.is_file() {
        up
    } else {
        PathBuf::from(FIXTURE)
    }
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let out = roofline().args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn assert_no_panic(args: &[&str], r: &Run) {
    let lower = r.stderr.to_lowercase();
    assert!(
        !lower.contains("panicked") && !lower.contains("backtrace"),
        "roofline {args:?} panicked or mentioned a backtrace:\n{}",
        r.stderr
    );
}

/// Exit 2, exactly one `error:` line, naming every one of `needles`, no GPU, no panic.
fn bad(args: &[&str], needles: &[&str]) {
    let r = run(args);
    assert_no_panic(args, &r);
    assert_eq!(
        r.code,
        Some(2),
        "roofline {args:?} should exit 2\nstdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    assert!(
        !r.stderr.contains("no CUDA GPU"),
        "roofline {args:?} reached the GPU before validating its arguments:\n{}",
        r.stderr
    );
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "roofline {args:?} should print exactly one error line:\n{}",
        r.stderr
    );
    // The error line and its indented continuation (clap lists missing arguments there).
    let block: Vec<&str> = r
        .stderr
        .lines()
        .skip_while(|l| !l.starts_with("error:"))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
        .map(|(_, l)| l)
        .collect();
    let block = block.join("\n");
    for n in needles {
        assert!(
            block.contains(n),
            "roofline {args:?}: the error should mention {n:?}:\n{}",
            r.stderr
        );
    }
}

/// Valid arguments that need the GPU: without a driver, exit 2 with "no CUDA GPU".
fn reaches_gpu(args: &[&str]) {
    if has_driver() {
        return;
    }
    let r = run(args);
    assert_no_panic(args, &r);
    assert_eq!(r.code, Some(2), "roofline {args:?}:\n{}", r.stderr);
    assert!(
        r.stderr.contains("no CUDA GPU"),
        "roofline {args:?} should have parsed and reached the GPU:\n{}",
        r.stderr
    );
}

macro_rules! bad_input {
    ($($name:ident: [$($arg:expr),* $(,)?] => [$($needle:expr),* $(,)?];)*) => {
        $(
            #[test]
            fn $name() {
                bad(&[$($arg),*], &[$($needle),*]);
            }
        )*
    };
}

// Sizes: zero, negative (both spellings), non-numeric, fractional, too large.
bad_input! {
    copy_bytes_zero: ["bench", "copy", "--bytes", "0"] => ["--bytes", "at least 1 byte"];
    copy_bytes_negative: ["bench", "copy", "--bytes", "-5"] => ["--bytes"];
    copy_bytes_negative_eq: ["bench", "copy", "--bytes=-5"] => ["--bytes", "at least 1 byte"];
    copy_bytes_negative_unit: ["bench", "copy", "--bytes=-1MiB"] => ["--bytes"];
    copy_bytes_garbage: ["bench", "copy", "--bytes", "lots"] => ["--bytes", "not a size"];
    copy_bytes_bad_unit: ["bench", "copy", "--bytes", "3XB"] => ["--bytes", "unknown size unit"];
    copy_bytes_huge: ["bench", "copy", "--bytes", "1e30"] => ["--bytes"];
    copy_bytes_odd: ["bench", "copy", "--bytes", "4097"] => ["--bytes", "even"];
    gemm_m_zero: ["bench", "gemm", "--m", "0"] => ["--m", "at least 1"];
    gemm_n_zero: ["bench", "gemm", "--n", "0"] => ["--n", "at least 1"];
    gemm_k_zero: ["bench", "gemm", "--k", "0"] => ["--k", "at least 1"];
    gemm_m_negative: ["bench", "gemm", "--m", "-4"] => ["--m"];
    gemm_n_negative_eq: ["bench", "gemm", "--n=-4"] => ["--n", "at least 1"];
    gemm_k_garbage: ["bench", "gemm", "--k", "big"] => ["--k", "not a whole number"];
    gemm_m_fraction: ["bench", "gemm", "--m", "1.5"] => ["--m", "not a whole number"];
    gemm_m_above_2_31: ["bench", "gemm", "--m", "2147483648"] => ["--m", "32 bits"];
    gemm_k_far_above_2_31: ["bench", "gemm", "--k", "3000000000"] => ["--k", "32 bits"];
    gemm_gelu_m_zero: ["bench", "gemm-gelu", "--m", "0"] => ["--m", "at least 1"];
    gemm_gelu_n_negative: ["bench", "gemm-gelu", "--n", "-1"] => ["--n"];
    gemm_gelu_k_garbage: ["bench", "gemm-gelu", "--k", "x"] => ["--k", "not a whole number"];
    gemm_gelu_n_above_2_31: ["bench", "gemm-gelu", "--n", "4294967296"] => ["--n", "32 bits"];
    gemm_residual_k_zero: ["bench", "gemm-residual", "--k", "0"] => ["--k", "at least 1"];
    gemm_residual_rows_flag: ["bench", "gemm-residual", "--rows", "4"] => ["--rows", "gemm_residual", "--m --n --k"];
    gemv_m_zero: ["bench", "gemv", "--m", "0"] => ["--m", "at least 1"];
    gemv_n_garbage: ["bench", "gemv", "--n", "4k"] => ["--n", "not a whole number"];
    gemv_k_negative: ["bench", "gemv", "--k", "-4096"] => ["--k"];
    gemv_k_negative_eq: ["bench", "gemv", "--k=-4096"] => ["--k", "at least 1"];
    gemv_k_above_2_31: ["bench", "gemv", "--k", "2147483648"] => ["--k", "32 bits"];
    relu_elems_zero: ["bench", "relu", "--elems", "0"] => ["--elems", "at least 1"];
    relu_elems_negative: ["bench", "relu", "--elems", "-1"] => ["--elems"];
    relu_elems_garbage: ["bench", "relu", "--elems", "many"] => ["--elems", "not a whole number"];
    relu_elems_above_2_31: ["bench", "relu", "--elems", "2147483648"] => ["--elems", "32 bits"];
    gelu_elems_zero: ["bench", "gelu", "--elems", "0"] => ["--elems", "at least 1"];
    gelu_elems_negative_eq: ["bench", "gelu", "--elems=-3"] => ["--elems", "at least 1"];
    gelu_elems_garbage: ["bench", "gelu", "--elems", "1e6"] => ["--elems", "not a whole number"];
    layernorm_rows_zero: ["bench", "layernorm", "--rows", "0"] => ["--rows", "at least 1"];
    layernorm_rows_negative: ["bench", "layernorm", "--rows", "-2"] => ["--rows"];
    layernorm_hidden_zero: ["bench", "layernorm", "--hidden", "0"] => ["--hidden", "at least 1"];
    layernorm_hidden_garbage: ["bench", "layernorm", "--hidden", "wide"] => ["--hidden", "not a whole number"];
    layernorm_hidden_above_2_31: ["bench", "layernorm", "--hidden", "2147483648"] => ["--hidden", "32 bits"];
}

// Names: kernels, implementations, variants, GELU forms.
bad_input! {
    unknown_kernel: ["bench", "softmax"] => ["softmax", "add_rmsnorm", "roofline list"];
    bench_missing_family: ["bench"] => ["<FAMILY>"];
    shape_flag_of_another_family: ["bench", "relu", "--m", "4"] => ["--m", "relu", "--elems"];
    rows_flag_on_a_gemm: ["bench", "hgemm", "--rows", "4"] => ["--rows", "--m --n --k"];
    gelu_on_a_family_without_one: ["bench", "relu", "--gelu", "erf"] => ["--gelu", "relu"];
    gelu_on_the_residual_epilogue: ["bench", "gemm-residual", "--gelu", "erf"] => ["--gelu", "gemm_residual"];
    gemm_residual_impl_unknown: ["bench", "gemm-residual", "--impl", "fused"] => ["--impl", "fused", "ours", "plain", "cublaslt"];
    gemm_residual_variant_v99: ["bench", "gemm_residual", "--variant", "v99"] => ["variant", "v99", "v4"];
    impl_of_another_family: ["bench", "layernorm", "--impl", "cublas"] => ["--impl", "cublas", "ours"];
    add_rmsnorm_rows_zero: ["bench", "add_rmsnorm", "--rows", "0"] => ["--rows", "at least 1"];
    add_rmsnorm_variant_v99: ["bench", "add_rmsnorm", "--variant", "v99"] => ["variant", "v99", "v1"];
    unknown_top_level_command: ["benchmark"] => ["benchmark"];
    unknown_top_level_flag: ["--frobnicate", "info"] => ["--frobnicate"];
    unknown_bench_flag: ["bench", "copy", "--frobnicate"] => ["--frobnicate"];
    gemm_impl_unknown: ["bench", "gemm", "--impl", "tensorrt"] => ["--impl", "tensorrt", "ours", "cublas"];
    gemm_impl_one_of_list_unknown: ["bench", "hgemm", "--impl", "ours,bogus"] => ["--impl", "bogus"];
    gemm_impl_wmma_is_not_a_name: ["bench", "hgemm", "--impl", "wmma"] => ["--impl", "wmma", "ours"];
    gemm_impl_empty: ["bench", "gemm", "--impl", ""] => ["--impl"];
    gemm_gelu_impl_unknown: ["bench", "gemm-gelu", "--impl", "fused,bogus"] => ["--impl", "bogus", "plain", "cublaslt"];
    gemv_impl_unknown: ["bench", "gemv", "--impl", "wmma"] => ["--impl", "wmma", "ours"];
    gemv_impl_unknown_lists_read: ["bench", "gemv", "--impl", "ours,floor"] => ["--impl", "floor", "read"];
    gemv_read_of_tiny_w: ["bench", "gemv", "--impl", "read", "--n", "1", "--k", "3"] => ["--impl read", "16 bytes"];
    gemm_variant_v99: ["bench", "gemm", "--variant", "v99"] => ["variant", "v99", "v1"];
    gemm_variant_fast: ["bench", "gemm", "--variant", "fast"] => ["variant", "fast", "v1"];
    gemm_variant_list_with_bad: ["bench", "gemm", "--variant", "v1,v99"] => ["variant", "v99"];
    gemm_variant_zero: ["bench", "gemm", "--variant", "v0"] => ["variant", "v0"];
    gemm_gelu_variant_v99: ["bench", "gemm-gelu", "--variant", "v99"] => ["variant", "v99"];
    gemv_variant_fast: ["bench", "gemv", "--variant", "fast"] => ["variant", "fast"];
    relu_variant_v99: ["bench", "relu", "--variant", "v99"] => ["variant", "v99"];
    gelu_variant_fast: ["bench", "gelu", "--variant", "fast"] => ["variant", "fast"];
    layernorm_variant_v99: ["bench", "layernorm", "--variant", "v99"] => ["variant", "v99"];
    copy_variant_v99: ["bench", "copy", "--variant", "v99"] => ["variant", "v99"];
    copy_variant_fast: ["bench", "copy", "--variant", "fast"] => ["variant", "fast"];
    gemm_gelu_gelu_bogus: ["bench", "gemm-gelu", "--gelu", "bogus"] => ["--gelu", "bogus", "tanh"];
    gelu_gelu_bogus: ["bench", "gelu", "--gelu", "relu"] => ["--gelu", "relu", "erf"];
    cublaslt_with_erf: ["bench", "gemm-gelu", "--impl", "cublaslt", "--gelu", "erf"] => ["--gelu tanh", "cublaslt"];
    default_impls_with_erf: ["bench", "gemm-gelu", "--gelu", "erf"] => ["--gelu tanh", "cublaslt"];
}

// Conflicting flags.
bad_input! {
    hot_and_cold: ["bench", "copy", "--hot", "--cold"] => ["--hot", "--cold"];
    cold_and_hot_gemv: ["bench", "gemv", "--cold", "--hot"] => ["--hot", "--cold"];
    interleave_and_hot: ["bench", "gemm", "--variant", "10,11", "--interleave", "--hot"] => ["--interleave", "--hot"];
    graph_and_launch: ["bench", "copy", "--graph", "--launch"] => ["--graph", "--launch"];
    launch_and_graph_relu: ["bench", "relu", "--launch", "--graph"] => ["--graph", "--launch"];
    json_and_csv: ["bench", "copy", "--json", "--csv"] => ["--json", "--csv"];
    json_and_markdown: ["bench", "gemm", "--json", "--markdown"] => ["--json", "--markdown"];
    csv_and_markdown: ["bench", "layernorm", "--csv", "--markdown"] => ["--csv", "--markdown"];
    sweep_json_and_csv: ["sweep", "square", "--json", "--csv"] => ["--json", "--csv"];
}

// Measurement settings.
bad_input! {
    target_noise_zero: ["bench", "copy", "--target-noise", "0"] => ["--target-noise"];
    target_noise_two: ["bench", "copy", "--target-noise", "2"] => ["--target-noise"];
    target_noise_one: ["bench", "gemm", "--target-noise", "1"] => ["--target-noise"];
    target_noise_nan: ["bench", "gemv", "--target-noise", "nan"] => ["--target-noise"];
    target_noise_garbage: ["bench", "copy", "--target-noise", "low"] => ["--target-noise"];
    max_samples_below_min: ["bench", "copy", "--min-samples", "10", "--max-samples", "5"] => ["--max-samples", "--min-samples"];
    max_samples_below_default_min: ["bench", "relu", "--max-samples", "3"] => ["--max-samples", "--min-samples"];
    min_samples_zero: ["bench", "copy", "--min-samples", "0"] => ["--min-samples"];
    min_samples_negative: ["bench", "copy", "--min-samples=-1"] => ["--min-samples"];
    max_time_zero: ["bench", "copy", "--max-time-ms", "0"] => ["--max-time-ms"];
    max_time_below_min_time: ["bench", "copy", "--min-time-ms", "50", "--max-time-ms", "10"] => ["--max-time-ms", "--min-time-ms"];
    warmup_negative: ["bench", "copy", "--warmup-ms=-1"] => ["--warmup-ms"];
    warmup_nan: ["bench", "copy", "--warmup-ms", "nan"] => ["--warmup-ms"];
    seed_negative: ["bench", "copy", "--seed=-1"] => ["--seed"];
}

// Commands other than bench.
bad_input! {
    check_kernel_bogus: ["check", "--kernel", "bogus"] => ["--kernel", "bogus", "hgemm"];
    check_kernel_one_bogus: ["check", "--kernel", "hgemm,bogus"] => ["--kernel", "bogus"];
    check_random_negative: ["check", "--random=-1"] => ["--random"];
    sweep_bogus_name: ["sweep", "bogus-name"] => ["bogus-name"];
    sweep_missing_name: ["sweep"] => ["<WHICH>"];
    sweep_max_time_below_min: ["sweep", "llm", "--min-time-ms", "50", "--max-time-ms", "10"] => ["--max-time-ms", "--min-time-ms"];
    sweep_max_time_below_default_min: ["sweep", "llm", "--max-time-ms", "5"] => ["--max-time-ms", "--min-time-ms"];
    sweep_min_time_negative: ["sweep", "square", "--min-time-ms=-1"] => ["--min-time-ms"];
    sweep_max_time_nan: ["sweep", "llm", "--max-time-ms", "nan"] => ["--max-time-ms"];
    compare_threshold_negative: ["compare", FIXTURE, FIXTURE, "--threshold", "-1"] => ["--threshold"];
    compare_threshold_negative_eq: ["compare", FIXTURE, FIXTURE, "--threshold=-1"] => ["--threshold"];
    compare_threshold_nan: ["compare", FIXTURE, FIXTURE, "--threshold", "nan"] => ["--threshold"];
    compare_missing_second_file: ["compare", FIXTURE] => ["<NEW>"];
    plot_missing_out: ["plot", FIXTURE] => ["--out"];
    device_negative: ["--device=-1", "info"] => ["--device"];
}

#[test]
fn out_into_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no/such/folder/results.json");
    let out = out.to_str().unwrap();
    for k in [
        "copy",
        "hgemm",
        "gemm",
        "gemm_bias_gelu",
        "gemm-gelu",
        "gemm_residual",
        "gemm-residual",
        "gemv",
        "relu",
        "gelu",
        "layernorm",
        "add_rmsnorm",
    ] {
        bad(&["bench", k, "--out", out], &["--out", "does not exist"]);
    }
    bad(
        &["sweep", "decode", "--out", out],
        &["--out", "does not exist"],
    );
}

#[test]
fn out_pointing_at_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for k in ["copy", "gemm", "relu"] {
        bad(&["bench", k, "--out", out], &["--out", "folder"]);
    }
    bad(&["sweep", "square", "--out", out], &["--out", "folder"]);
}

#[test]
fn report_out_pointing_at_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.md");
    std::fs::write(&file, "x").unwrap();
    bad(&["report", "--out", file.to_str().unwrap()], &["--out"]);
}

#[test]
fn report_resume_from_a_garbled_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("partial.json"), "{ not a checkpoint").unwrap();
    let out = dir.path().to_str().unwrap();
    bad(
        &["report", "--out", out, "--resume"],
        &["partial.json", "delete it"],
    );
}

#[test]
fn plot_out_pointing_at_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("charts");
    std::fs::write(&file, "x").unwrap();
    let fx = fixture();
    bad(
        &[
            "plot",
            fx.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
        ],
        &["--out"],
    );
}

#[test]
fn compare_with_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let (m, fx) = (missing.to_str().unwrap(), fixture());
    let fx = fx.to_str().unwrap();
    bad(&["compare", m, fx], &["missing.json"]);
    bad(&["compare", fx, m], &["missing.json"]);
}

#[test]
fn compare_with_a_file_that_is_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "this is not JSON\n").unwrap();
    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, r#"{"hello": [1, 2, 3]}"#).unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let fx = fixture();
    let fx = fx.to_str().unwrap();
    for (p, name) in [
        (&junk, "junk.json"),
        (&wrong, "wrong.json"),
        (&empty, "empty.json"),
    ] {
        bad(&["compare", p.to_str().unwrap(), fx], &[name]);
        bad(&["compare", fx, p.to_str().unwrap()], &[name]);
    }
}

#[test]
fn compare_with_a_folder_as_file() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture();
    bad(
        &[
            "compare",
            dir.path().to_str().unwrap(),
            fx.to_str().unwrap(),
        ],
        &[dir.path().to_str().unwrap()],
    );
}

#[test]
fn plot_with_a_missing_or_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    let charts = dir.path().join("charts");
    let charts = charts.to_str().unwrap();
    let missing = dir.path().join("missing.json");
    bad(
        &["plot", missing.to_str().unwrap(), "--out", charts],
        &["missing.json"],
    );
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "[1, 2").unwrap();
    bad(
        &["plot", junk.to_str().unwrap(), "--out", charts],
        &["junk.json"],
    );
}

// ---- CPU-only commands that succeed ----

#[test]
fn help_and_version_exit_0() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["bench", "--help"],
        &["bench", "gemm", "--help"],
        &["compare", "--help"],
        &["list"],
        &["list", "--json"],
        &["help", "sweep"],
    ] {
        let r = run(args);
        assert_no_panic(args, &r);
        assert_eq!(r.code, Some(0), "roofline {args:?}:\n{}", r.stderr);
        assert!(!r.stdout.is_empty(), "roofline {args:?} printed nothing");
    }
    let v = run(&["--version"]);
    assert!(
        v.stdout.contains(env!("CARGO_PKG_VERSION")),
        "--version: {}",
        v.stdout
    );
    let h = run(&["--help"]);
    for cmd in ["bench", "compare", "plot", "check", "sweep"] {
        assert!(h.stdout.contains(cmd), "--help lacks {cmd}:\n{}", h.stdout);
    }
}

/// `list --json` names every family and its variants, and every family it names is one that
/// bench and check accept (a CPU test: the variant tables are compiled in).
#[test]
fn list_json_names_every_family_and_bench_and_check_take_each() {
    let r = run(&["list", "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("list --json is JSON");
    let fams = v.as_array().expect("an array of families");
    let names: Vec<&str> = fams.iter().map(|f| f["name"].as_str().unwrap()).collect();
    for want in [
        "copy",
        "hgemm",
        "gemm_bias_gelu",
        "gemm_residual",
        "gemv",
        "relu",
        "gelu",
        "layernorm",
        "add_rmsnorm",
    ] {
        assert!(names.contains(&want), "list lacks {want}: {names:?}");
    }
    for f in fams {
        let name = f["name"].as_str().unwrap();
        assert!(
            !f["variants"].as_array().unwrap().is_empty(),
            "{name}: no variants"
        );
        assert!(
            !f["references"].as_array().unwrap().is_empty(),
            "{name}: no reference"
        );
        assert!(
            !f["dispatch"].as_array().unwrap().is_empty(),
            "{name}: no dispatch table"
        );
        // A flag the family does not take is refused by name before any GPU work, so this
        // shows that bench knows the family (an unknown one fails on its name instead).
        let other = if name == "copy" { "--elems" } else { "--bytes" };
        bad(&["bench", name, other, "64"], &[other, name]);
        // check accepts the name: its only possible failure here is the missing GPU.
        reaches_gpu(&["check", "--kernel", name, "--random", "0"]);
    }
    let text = run(&["list"]);
    assert!(text.stdout.contains("best = v"), "{}", text.stdout);
}

/// `list` says which variants take `--dtype bf16`: the GEMM families' best and the candidates
/// (their BF16_FORMS), marked in the text and in the JSON (each variant's and family's
/// `dtypes`); the rest fp16.
#[test]
fn list_says_which_variants_take_bf16() {
    let r = run(&["list", "--json"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for f in v.as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let gemm = ["hgemm", "gemm_bias_gelu", "gemm_residual"].contains(&name);
        let dtypes: Vec<&str> = f["dtypes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap())
            .collect();
        assert_eq!(
            dtypes,
            if gemm {
                vec!["fp16", "bf16"]
            } else {
                vec!["fp16"]
            }
        );
        let best = f["best"].as_str().unwrap();
        for var in f["variants"].as_array().unwrap() {
            let bf16 = var["dtypes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d == "bf16");
            // best, and the candidates (the families' BF16_FORMS)
            let v = var["name"].as_str().unwrap();
            let forms = match name {
                "hgemm" => gemm::BF16_FORMS.to_vec(),
                "gemm_bias_gelu" => gemm_gelu::BF16_FORMS.to_vec(),
                _ => vec![],
            };
            let candidate = forms.iter().any(|f| v == format!("v{f}"));
            assert_eq!(
                bf16,
                gemm && (v == best || candidate),
                "{name} {}",
                var["name"]
            );
        }
    }
    let text = run(&["list"]).stdout;
    assert!(text.contains("bf16 (--dtype bf16): v14"), "{text}");
    assert!(text.contains("[fp16, bf16]"), "{text}");
}

#[test]
fn compare_identical_files_passes() {
    let fx = fixture();
    let fx = fx.to_str().unwrap();
    let r = run(&["compare", fx, fx]);
    assert_no_panic(&["compare"], &r);
    assert_eq!(
        r.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains("0 slower"), "{}", r.stdout);
    let md = run(&["compare", fx, fx, "--markdown", "--threshold", "0"]);
    assert_eq!(md.code, Some(0), "{}", md.stderr);
    assert!(md.stdout.contains('|'), "{}", md.stdout);
}

/// Writes a copy of the fixture with one quiet record made 50% slower; returns its key.
fn slowed_copy(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let recs = v["records"].as_array_mut().unwrap();
    // The quietest record, so that 50% is far outside its noise band.
    let i = (0..recs.len())
        .min_by(|&a, &b| {
            let na = recs[a]["noise"].as_f64().unwrap();
            let nb = recs[b]["noise"].as_f64().unwrap();
            na.total_cmp(&nb)
        })
        .unwrap();
    assert!(recs[i]["noise"].as_f64().unwrap() < 0.05);
    let r = recs[i].as_object_mut().unwrap();
    for f in ["median_ms", "min_ms", "p10_ms", "p90_ms"] {
        let x = r[f].as_f64().unwrap();
        r.insert(f.into(), (x * 1.5).into());
    }
    for f in ["tflops", "gbs"] {
        let x = r[f].as_f64().unwrap();
        r.insert(f.into(), (x / 1.5).into());
    }
    let p = r["pct_attainable"].as_f64().unwrap();
    r.insert("pct_attainable".into(), (p / 1.5).into());
    r.insert("noise".into(), 0.002.into());
    let path = dir.join("slowed.json");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path
}

#[test]
fn compare_flags_a_50_percent_slowdown() {
    let dir = tempfile::tempdir().unwrap();
    let slow = slowed_copy(dir.path());
    let fx = fixture();
    let args = ["compare", fx.to_str().unwrap(), slow.to_str().unwrap()];
    let r = run(&args);
    assert_no_panic(&args, &r);
    assert_eq!(
        r.code,
        Some(1),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains("SLOWER"), "{}", r.stdout);
    assert!(r.stdout.contains("1 slower"), "{}", r.stdout);
    assert!(r.stderr.contains("regression"), "{}", r.stderr);
    // The other way round it is a speed-up: exit 0.
    let back = ["compare", slow.to_str().unwrap(), fx.to_str().unwrap()];
    let r = run(&back);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("1 faster"), "{}", r.stdout);
    // A threshold above the change lets it through.
    let lax = [args[0], args[1], args[2], "--threshold", "60"];
    assert_eq!(run(&lax).code, Some(0));
}

#[test]
fn plot_writes_the_roofline_and_sweep_charts() {
    let llm = fixture().with_file_name("results_llm.json");
    for (fx, names) in [
        (fixture(), &["roofline.svg", "square.svg", "decode.svg"][..]),
        (llm, &["roofline.svg", "llm.svg"][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let charts = dir.path().join("charts");
        let args = [
            "plot",
            fx.to_str().unwrap(),
            "--out",
            charts.to_str().unwrap(),
        ];
        let r = run(&args);
        assert_no_panic(&args, &r);
        assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
        for name in names {
            let svg = charts.join(name);
            assert!(svg.is_file(), "no {name}; stdout:\n{}", r.stdout);
            let text = std::fs::read_to_string(svg).unwrap();
            assert!(text.contains("<svg"), "{name} is not an SVG");
        }
    }
}

// --dtype: bf16 only where the family, the variant, the implementation and the sweep have a
// bf16 form (the GEMM families' last variants and their libraries); never a user's kernel.
bad_input! {
    dtype_bogus: ["bench", "hgemm", "--dtype", "fp32"] => ["--dtype", "fp32", "fp16 or bf16"];
    dtype_bf16_on_gemv: ["bench", "gemv", "--dtype", "bf16"] => ["--dtype bf16", "gemv", "fp16 only", "hgemm"];
    dtype_bf16_on_layernorm: ["bench", "layernorm", "--dtype", "bf16"] => ["--dtype bf16", "layernorm", "gemm_residual"];
    dtype_bf16_old_variant: ["bench", "hgemm", "--dtype", "bf16", "--variant", "v11"] => ["--dtype bf16", "v11", "no bf16 form", "v14"];
    dtype_bf16_old_fused_variant: ["bench", "gemm-gelu", "--dtype", "bf16", "--variant", "4"] => ["gemm_bias_gelu v4", "v7"];
    dtype_bf16_unfused: ["bench", "gemm-gelu", "--dtype", "bf16", "--impl", "fused,unfused"] => ["--impl unfused", "fused, plain, cublaslt"];
    dtype_bf16_unfused_cublas: ["bench", "gemm-gelu", "--dtype", "bf16", "--impl", "unfused_cublas"] => ["--impl unfused_cublas"];
    dtype_bf16_residual_old_variant: ["bench", "gemm-residual", "--dtype", "bf16", "--variant", "v3"] => ["gemm_residual v3", "v11"];
    dtype_bf16_user_kernel: ["bench", "hgemm", "--dtype", "bf16", "--plugin", "/nonexistent/lib.so"] => ["--dtype bf16", "user's kernel", "fp16"];
    check_dtype_bf16_user_kernel: ["check", "--kernel", "hgemm", "--dtype", "bf16", "--kernel-file", "/nonexistent/k.cu"] => ["--dtype bf16", "user's kernel"];
    check_dtype_bogus: ["check", "--dtype", "half"] => ["--dtype", "half"];
    check_dtype_bf16_on_copy: ["check", "--kernel", "copy", "--dtype", "bf16"] => ["--dtype bf16", "copy", "fp16 only"];
    sweep_dtype_bf16_fusion: ["sweep", "fusion", "--dtype", "bf16"] => ["--dtype bf16", "fusion", "square and llm"];
    sweep_dtype_bf16_decode: ["sweep", "decode", "--dtype", "bf16"] => ["--dtype bf16", "decode"];
    sweep_dtype_bogus: ["sweep", "square", "--dtype", "int8"] => ["--dtype", "int8"];
}

// ---- valid arguments reach the GPU (checked only where no driver exists) ----

#[test]
fn valid_arguments_reach_the_gpu() {
    let cases: &[&[&str]] = &[
        &["bench", "copy"],
        &["bench", "copy", "--bytes", "4098", "--hot", "--graph"],
        &["bench", "gemm", "--m", "33", "--n", "17", "--k", "40"],
        &["bench", "gemm", "--m", "2147483647", "--n", "1", "--k", "1"],
        &[
            "bench",
            "gemm-gelu",
            "--impl",
            "fused,unfused",
            "--gelu",
            "erf",
        ],
        &["bench", "gemv", "--m", "1", "--variant", "all"],
        &["bench", "gemm", "--variant", "10,11", "--interleave"],
        &["bench", "relu", "--elems", "4099"],
        &["bench", "gelu", "--elems", "1", "--gelu", "erf"],
        &["bench", "layernorm", "--rows", "5", "--hidden", "1030"],
        &["bench", "add_rmsnorm", "--rows", "3", "--hidden", "4099"],
        &["bench", "hgemm", "--k", "40"],
        &["check", "--kernel", "hgemm", "--random", "0"],
        &["check", "--kernel", "add_rmsnorm,gelu", "--random", "1"],
        &["sweep", "llm", "--max-time-ms", "30"],
        &[
            "bench", "hgemm", "--dtype", "bf16", "--m", "33", "--n", "17", "--k", "40",
        ],
        &[
            "bench",
            "gemm-gelu",
            "--dtype",
            "bf16",
            "--gelu",
            "erf",
            "--impl",
            "fused,plain",
        ],
        &["bench", "gemm-gelu", "--dtype", "bf16"],
        &[
            "bench",
            "gemm-residual",
            "--dtype",
            "bf16",
            "--variant",
            "all",
        ],
        &["check", "--dtype", "bf16", "--random", "3"],
        &[
            "check",
            "--kernel",
            "hgemm,gemm_residual",
            "--dtype",
            "bf16",
        ],
        &["sweep", "square", "--dtype", "bf16", "--quick"],
        &["info"],
    ];
    for args in cases {
        reaches_gpu(args);
    }
}

#[test]
fn valid_out_file_reaches_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    reaches_gpu(&["bench", "copy", "--out", out.to_str().unwrap()]);
    if !has_driver() {
        assert!(!out.exists(), "no results file should be written");
    }
}
