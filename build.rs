//! Compiles the CUDA sources with nvcc (the compiler `cc` configures) into one static library
//! linked with the static CUDA runtime, and turns the launcher headers into Rust FFI with
//! bindgen.
//!
//! Incremental: each .cu file (cuda/*.cu, and cuda/<family>/*.cu for families in folders of
//! their own) is compiled to its own object in OUT_DIR, with nvcc's dependency list beside it,
//! and compiled again only when it, a header it includes, or the compile flags changed. So a
//! change inside one family rebuilds that family's objects only (docs/perf-log.md, build times).
//!
//! Bindings: cuda/kernels.h (the shared interface) and every family's own public header,
//! cuda/<family>/<family>.h.
//!
//! Environment:
//!   ROOFLINE_CUDA_ARCHS  comma list of SASS targets (default "90a,80"); "90a" builds
//!                        sm_90a (Hopper wgmma-capable), "80" sm_80 (runs on all sm_8x).
//!                        One PTX for the lowest listed target is embedded so newer GPUs can
//!                        JIT; it is PTX of this nvcc (13.0), which driver 580+ loads.
//!   ROOFLINE_PTXAS_VERBOSE=1  print ptxas register/smem reports as build warnings.
//!   NVCC, CUDA_HOME, CUDA_PATH, PATH, ROOFLINE_CUDA_CACHE, XDG_CACHE_HOME, HOME: see
//!   src/toolkit.rs.

#[path = "src/toolkit.rs"]
mod toolkit;

use std::path::PathBuf;

fn main() {
    for var in [
        "ROOFLINE_CUDA_ARCHS",
        "ROOFLINE_PTXAS_VERBOSE",
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "PATH",
        "ROOFLINE_CUDA_CACHE",
        "XDG_CACHE_HOME",
        "HOME",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // A folder makes cargo look at every file under it.
    println!("cargo:rerun-if-changed=cuda");
    println!("cargo:rerun-if-changed=src/toolkit.rs");
    println!("cargo:rerun-if-changed=src/build_incremental.rs");

    embed_git_commit();

    let inputs = toolkit::SearchInputs::from_env();
    let Some(tk) = toolkit::find(&inputs) else {
        eprintln!("{}", toolkit::not_found_message(&inputs));
        std::process::exit(1);
    };

    let sources = cuda_sources();
    let family_headers = family_headers();

    let archs = std::env::var("ROOFLINE_CUDA_ARCHS").unwrap_or_else(|_| "90a,80".into());
    // cc finds the CUDA compiler through $NVCC; point it at the toolkit we found.
    std::env::set_var("NVCC", &tk.nvcc);
    let mut build = cc::Build::new();
    build
        .cuda(true)
        .cudart("static")
        .opt_level(3)
        // Device code is always built optimized: cc's debug flag would add -G, which serializes
        // the wgmma kernel (ptxas C7520) and is not what any GPU run measures or tests.
        .debug(false)
        .include("cuda")
        .flag("-std=c++17")
        .flag("--expt-relaxed-constexpr")
        .flag("-Xcompiler=-fPIC")
        .warnings(false);
    let list: Vec<&str> = archs
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        eprintln!("roofline-lab: ROOFLINE_CUDA_ARCHS is empty; use e.g. 90a,80");
        std::process::exit(1);
    }
    for a in &list {
        build.flag(format!("-gencode=arch=compute_{a},code=sm_{a}"));
    }
    // The wgmma kernels exist only in sm_90a code: the host dispatches to them only when this
    // build carries that code.
    if list.contains(&"90a") {
        build.define("RL_SM90A", "1");
    }
    // PTX for the lowest target, so a GPU newer than every SASS target can still JIT it.
    let lowest = list
        .iter()
        .min_by_key(|a| a.trim_end_matches('a').parse::<u32>().unwrap_or(u32::MAX))
        .unwrap();
    let ptx = lowest.trim_end_matches('a');
    build.flag(format!("-gencode=arch=compute_{ptx},code=compute_{ptx}"));
    if std::env::var("ROOFLINE_PTXAS_VERBOSE").is_ok_and(|v| v == "1") {
        build.flag("-Xptxas=-v");
        build.warnings(true);
    }

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let objects = incremental::compile_all(&build, &sources, &out_dir.join("cuda-objects"));
    build.objects(&objects);
    build.compile("roofline_kernels");

    for dir in tk.lib_dirs() {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    // cc adds cudart_static itself (cudart("static")); it needs these system libraries.
    for lib in ["stdc++", "dl", "rt", "pthread"] {
        println!("cargo:rustc-link-lib={lib}");
    }

    let mut bindgen = bindgen::Builder::default().header("cuda/kernels.h");
    for h in &family_headers {
        bindgen = bindgen.header(h.to_string_lossy());
    }
    let bindings = bindgen
        .allowlist_function("rl_.*")
        .layout_tests(false)
        .generate()
        .unwrap_or_else(|e| {
            eprintln!("roofline-lab: bindgen failed on cuda/kernels.h ({e}). bindgen needs libclang: run `bash scripts/setup.sh`.");
            std::process::exit(1);
        });
    bindings
        .write_to_file(out_dir.join("kernels.rs"))
        .expect("write bindings");
}

/// Every .cu file: cuda/*.cu and cuda/<family>/*.cu, sorted.
fn cuda_sources() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("cuda").expect("cuda/ folder").flatten() {
        let p = entry.path();
        if p.is_dir() {
            for e in std::fs::read_dir(&p).expect("family folder").flatten() {
                if e.path().extension().is_some_and(|x| x == "cu") {
                    out.push(e.path());
                }
            }
        } else if p.extension().is_some_and(|x| x == "cu") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The public launcher header of each family in a folder of its own: cuda/<f>/<f>.h.
fn family_headers() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir("cuda")
        .expect("cuda/ folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|d| d.join(format!("{}.h", d.file_name().unwrap().to_string_lossy())))
        .filter(|h| h.is_file())
        .collect();
    out.sort();
    out
}

#[path = "src/build_incremental.rs"]
mod incremental;

/// Records the commit the binary was built from (results files name it), with "-dirty" when
/// tracked files had uncommitted changes.
fn embed_git_commit() {
    for f in [".git/HEAD", ".git/index", ".git/refs"] {
        println!("cargo:rerun-if-changed={f}");
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=ROOFLINE_GIT_COMMIT={commit}{suffix}");
}
