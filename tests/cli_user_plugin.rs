//! Host-launcher plugins through the CLI (`--plugin LIB.so[:SYMBOL]`): the example plugins
//! are built with nvcc (found as build.rs finds it), and bad plugins are refused with exit 2
//! before any GPU work (CPU tests); on the GPU the examples verify and are timed beside ours
//! and cuBLAS, `check --plugin` passes, and a launcher's error code is named (exit 3).

use roofline_lab::toolkit;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

mod common;
use common::{bench_json, examples, run, text};

/// Where built plugins go: the crate's target/tmp, else the system's temp folder (a bundle).
fn build_dir() -> PathBuf {
    let t = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let base = if t.is_dir() {
        t.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let d = base.join("roofline-plugins");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The library built from examples/plugins/`name`.cu: prebuilt in $ROOFLINE_PLUGIN_DIR (the
/// bundle's plugins/, for GPU machines without nvcc), else built here with the toolkit
/// build.rs uses. None (the test skips) only when there is no nvcc and CI is not set.
fn plugin(name: &str) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let lib = format!("lib{}.so", name.replace('/', "_"));
    if let Some(d) = std::env::var_os("ROOFLINE_PLUGIN_DIR") {
        let p = PathBuf::from(d).join(&lib);
        assert!(p.is_file(), "ROOFLINE_PLUGIN_DIR has no {lib}");
        return Some(p);
    }
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some((_, p)) = built.iter().find(|(n, _)| n == name) {
        return Some(p.clone());
    }
    let Some(tk) = toolkit::find(&toolkit::SearchInputs::from_env()) else {
        let why = "no nvcc found (run scripts/setup.sh, or set CUDA_HOME / NVCC)";
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(!ci, "CI: {why}");
        eprintln!("skipping: {why}");
        return None;
    };
    let src = examples("plugins").join(format!("{name}.cu"));
    // Built under a name of this process's, then renamed: test runs may overlap.
    let out = build_dir().join(&lib);
    let tmp = out.with_extension(format!("so.{}", std::process::id()));
    let mut nvcc = Command::new(&tk.nvcc);
    nvcc.args(["-O3", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC"]);
    // The pip wheels keep libcudart_static.a in lib/, where nvcc does not look by itself.
    for d in tk.lib_dirs() {
        nvcc.arg(format!("-L{}", d.display()));
    }
    let o = nvcc.arg("-o").arg(&tmp).arg(&src).output().unwrap();
    assert!(o.status.success(), "nvcc {}: {}", src.display(), text(&o));
    std::fs::rename(&tmp, &out).unwrap();
    built.push((name.to_string(), out.clone()));
    Some(out)
}

#[test]
fn a_missing_file_exits_2_naming_it() {
    let o = run(&["bench", "gemv", "--plugin", "/nonexistent/libmine.so"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--plugin /nonexistent/libmine.so: cannot read it"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_file_that_is_no_library_exits_2_with_the_loaders_message() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("libnot.so");
    std::fs::write(&p, "not an ELF file").unwrap();
    let o = run(&["check", "--kernel", "gemv", "--plugin", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    // dlerror's words: "invalid ELF header" or "file too short".
    assert!(
        t.contains("cannot load it") && (t.contains("ELF") || t.contains("too short")),
        "{t}"
    );
}

#[test]
fn a_missing_symbol_exits_2_naming_it_and_the_prototype() {
    let Some(lib) = plugin("gemv_plugin") else {
        return;
    };
    let spec = format!("{}:my_gemv", lib.display());
    let o = run(&["bench", "gemv", "--plugin", &spec]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("no symbol 'my_gemv'")
            && text(&o).contains("int my_gemv(int variant, const void *x"),
        "{}",
        text(&o)
    );
    // The default symbol is the family's launcher: a GEMV plugin is no LayerNorm plugin.
    let o = run(&["bench", "layernorm", "--plugin", lib.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("no symbol 'rl_layernorm'"),
        "{}",
        text(&o)
    );
}

#[test]
fn plugin_and_kernel_file_are_refused_together() {
    for cmd in [&["bench", "gemv"][..], &["check", "--kernel", "gemv"][..]] {
        let mut a = cmd.to_vec();
        a.extend(["--plugin", "libx.so", "--kernel-file", "x.cu"]);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("cannot be used with"), "{}", text(&o));
    }
    // check needs the plugin's family (a plugin has no launch block to name it).
    let o = run(&["check", "--plugin", "libx.so"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--kernel FAMILY"), "{}", text(&o));
}

#[test]
fn list_carries_each_familys_plugin_signature() {
    let o = run(&["list", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let fams = v.as_array().unwrap();
    for f in fams {
        let proto = f["plugin_launcher"].as_str().unwrap();
        assert!(
            proto.starts_with("int rl_") && proto.ends_with("void *stream)"),
            "{}: {proto}",
            f["name"]
        );
    }
    let gemv = fams.iter().find(|f| f["name"] == "gemv").unwrap();
    assert_eq!(
        gemv["plugin_launcher"],
        "int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, \
         int M, int N, int K, void *stream)"
    );
    let o = run(&["list"]);
    assert!(
        text(&o).contains("your launcher (--plugin LIB.so[:SYMBOL]): extern \"C\" int rl_gemv("),
        "{}",
        text(&o)
    );
}

// ---- on the GPU

/// A built plugin, or a failed test: GPU tests do not skip.
fn need(name: &str) -> PathBuf {
    plugin(name).unwrap_or_else(|| panic!("{name}: no nvcc and no ROOFLINE_PLUGIN_DIR"))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_example_plugins_verify_and_are_timed_beside_ours_interleaved() {
    let dir = tempfile::tempdir().unwrap();
    for (name, fam, impls, shape) in [
        (
            "gemv_plugin",
            "gemv",
            "ours,user,cublas",
            &["--m", "3", "--n", "4100", "--k", "4097"][..],
        ),
        (
            "add_rmsnorm_two_kernels",
            "add_rmsnorm",
            "ours,user",
            &["--rows", "300", "--hidden", "4099"][..],
        ),
    ] {
        let lib = need(name);
        let out = dir.path().join(format!("{fam}.json"));
        let mut a = vec!["bench", fam, "--plugin", lib.to_str().unwrap()];
        a.extend(["--impl", impls, "--interleave"]);
        a.extend(shape);
        let (o, v) = bench_json(&a, &out);
        assert!(o.status.success(), "{name}: {}", text(&o));
        let recs = v.unwrap()["records"].as_array().unwrap().clone();
        let user: Vec<_> = recs.iter().filter(|r| r["impl"] == "user").collect();
        assert_eq!(user.len(), 1, "{name}: {recs:?}");
        assert_eq!(user[0]["verified"], true, "{name}");
        let variant = user[0]["variant"].as_str().unwrap();
        let want = format!("lib{name}.so:rl_{fam}@");
        assert!(
            variant.starts_with(&want) && variant.len() == want.len() + 12,
            "{name}: {variant}"
        );
        for i in impls.split(',') {
            assert!(recs.iter().any(|r| r["impl"] == i), "{name}: {i} beside it");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn check_passes_for_the_example_plugins() {
    for (name, fam) in [
        ("gemv_plugin", "gemv"),
        ("add_rmsnorm_two_kernels", "add_rmsnorm"),
    ] {
        let lib = need(name);
        let o = run(&[
            "check",
            "--kernel",
            fam,
            "--plugin",
            lib.to_str().unwrap(),
            "--random",
            "10",
        ]);
        assert!(o.status.success(), "{name}: {}", text(&o));
        assert!(text(&o).contains(" 0 failed"), "{name}: {}", text(&o));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_launchers_error_code_is_named_with_exit_3_and_earlier_results_kept() {
    let lib = need("broken/gemv_error_code");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e.json");
    let mut a = vec!["bench", "gemv", "--plugin", lib.to_str().unwrap()];
    a.extend(common::OURS_CUBLAS_THEN_USER);
    let (o, v) = bench_json(&a, &out);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("libbroken_gemv_error_code.so:rl_gemv") && t.contains("(cudaError 1)"),
        "{t}"
    );
    let recs = v.expect("earlier results written")["records"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(recs.len(), 2, "ours and cuBLAS kept: {recs:?}");
}
