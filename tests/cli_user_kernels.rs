//! Bring your own kernel through the CLI: every example compiles and takes its family's
//! signature, a compile error exits 2 with the compiler's line, `roofline new` writes a file
//! that compiles (CPU tests, NVRTC from scripts/setup.sh); on the GPU every example verifies
//! and is timed beside ours and the library, and the broken ones (the hang too) get their
//! exit codes.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bench_json, examples, run, text};

/// `bench FAMILY --kernel-file PATH --compile-only`: no GPU needed.
fn compile_only(family: &str, path: &Path) -> Output {
    run(&[
        "bench",
        family,
        "--kernel-file",
        path.to_str().unwrap(),
        "--compile-only",
    ])
}

/// (family, example file) for every good example.
fn good() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(examples("kernels")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "cu") {
            let t = std::fs::read_to_string(&p).unwrap();
            let fam = t
                .lines()
                .find_map(|l| l.split("roofline: family =").nth(1))
                .expect("a family line")
                .trim()
                .to_string();
            out.push((fam, p));
        }
    }
    out.sort();
    assert!(out.len() >= 8, "{out:?}");
    out
}

#[test]
fn every_example_compiles_and_takes_its_signature() {
    for (fam, p) in good() {
        let o = compile_only(&fam, &p);
        assert!(o.status.success(), "{}: {}", p.display(), text(&o));
        assert!(text(&o).contains("signature"), "{}", text(&o));
    }
}

#[test]
fn a_compile_error_exits_2_with_the_compilers_line() {
    let p = examples("kernels").join("broken/gemv_compile_error.cu");
    let o = compile_only("gemv", &p);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("gemv_compile_error.cu(20): error"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_file_for_another_family_or_signature_is_refused() {
    let p = examples("kernels").join("gemv_naive.cu");
    let o = compile_only("layernorm", &p);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("written for family 'gemv'"),
        "{}",
        text(&o)
    );
    // The same kernel with its launch block's family line removed: the signature check.
    let dir = tempfile::tempdir().unwrap();
    let t = std::fs::read_to_string(&p)
        .unwrap()
        .replace("// roofline: family = gemv\n", "");
    let q = dir.path().join("g.cu");
    std::fs::write(&q, t).unwrap();
    let o = compile_only("relu", &q);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("a relu kernel takes"), "{}", text(&o));
    let o = run(&["bench", "gemv", "--impl", "user"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn new_writes_a_kernel_that_compiles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for fam in ["gemv", "layernorm", "hgemm"] {
        let o = run(&["new", fam, &format!("my_{fam}"), "--dir", d]);
        assert!(o.status.success(), "{}", text(&o));
        let f = dir.path().join(format!("my_{fam}.cu"));
        assert!(text(&o).contains(&format!("roofline bench {fam} --kernel-file")));
        let o = compile_only(fam, &f);
        assert!(o.status.success(), "{}", text(&o));
        // A second time: the file exists, nothing is overwritten.
        let o = run(&["new", fam, &format!("my_{fam}"), "--dir", d]);
        assert_eq!(o.status.code(), Some(2));
    }
}

// ---- on the GPU

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_example_verifies_beside_ours_and_the_library_interleaved() {
    let dir = tempfile::tempdir().unwrap();
    for (fam, p) in good() {
        let shape: &[&str] = match fam.as_str() {
            "hgemm" | "gemm_bias_gelu" | "gemm_residual" => {
                &["--m", "1000", "--n", "1030", "--k", "520"]
            }
            "gemv" => &["--m", "3", "--n", "4100", "--k", "4097"],
            "layernorm" | "add_rmsnorm" => &["--rows", "300", "--hidden", "4099"],
            "copy" => &["--bytes", "4000002"],
            _ => &["--elems", "1000003"],
        };
        let out = dir.path().join(format!("{fam}.json"));
        let mut args = vec!["bench", fam.as_str(), "--kernel-file", p.to_str().unwrap()];
        args.extend(shape);
        args.push("--interleave");
        let (o, v) = bench_json(&args, &out);
        assert!(o.status.success(), "{fam}: {}", text(&o));
        let recs = v.unwrap()["records"].as_array().unwrap().clone();
        let user: Vec<_> = recs.iter().filter(|r| r["impl"] == "user").collect();
        assert_eq!(user.len(), 1, "{fam}: {recs:?}");
        assert_eq!(user[0]["verified"], true, "{fam}");
        assert!(
            user[0]["variant"].as_str().unwrap().contains(".cu:"),
            "{fam}"
        );
        assert!(
            recs.iter().any(|r| r["impl"] == "ours"),
            "{fam}: ours beside it"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn broken_examples_get_their_exit_codes_and_keep_earlier_results() {
    let dir = tempfile::tempdir().unwrap();
    // `bench gemv` on broken/NAME with these impls at an awkward shape, results to OUT.
    let run = |name: &str, impls: &str, out: &str| {
        let f = examples("kernels").join("broken").join(name);
        let mut a = vec!["bench", "gemv", "--kernel-file", f.to_str().unwrap()];
        a.extend(["--impl", impls, "--m", "2", "--n", "1000", "--k", "300"]);
        bench_json(&a, &dir.path().join(out))
    };
    // Wrong result: exit 1, the error norm named.
    let (o, _) = run("gemv_wrong_result.cu", "user", "w.json");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("rel"), "{}", text(&o));
    // Out of bounds: caught by the guard band, the offset named, exit 1.
    let (o, _) = run("gemv_out_of_bounds.cu", "user", "o.json");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("past the end, the first at index 2000"),
        "{}",
        text(&o)
    );
    // Works while verified, then skips its work: caught by the check after timing, exit 1.
    let (o, _) = run("gemv_lazy.cu", "user", "l.json");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("after timing"), "{}", text(&o));
    // A fault: exit 3, named, and ours (measured first) written.
    let (o, v) = run("gemv_fault.cu", "ours,cublas,user", "f.json");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("gemv_fault.cu:gemv_naive"),
        "{}",
        text(&o)
    );
    let recs = v.expect("earlier results written")["records"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(recs.len(), 2, "ours and cuBLAS kept: {recs:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_hung_kernel_is_reported_with_exit_3_and_earlier_results_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.json");
    let f = examples("kernels").join("broken").join("gemv_hang.cu");
    let start = std::time::Instant::now();
    let mut a = vec!["bench", "gemv", "--kernel-file", f.to_str().unwrap()];
    a.extend(common::OURS_CUBLAS_THEN_USER);
    a.extend(["--max-time-ms", "100", "--out", out.to_str().unwrap()]);
    // The kernel spins for 30 s; a 3-second limit must end the command well before that.
    let o = common::roofline()
        .args(&a)
        .env("ROOFLINE_SYNC_TIMEOUT_S", "3")
        .output()
        .expect("run roofline");
    let took = start.elapsed();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(3), "{t}");
    assert!(took.as_secs() < 25, "returned after {took:?}: {t}");
    assert!(t.contains("did not finish within 3 s"), "{t}");
    assert!(t.contains("gemv_hang.cu:gemv_naive"), "{t}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("earlier results written"))
            .unwrap();
    assert_eq!(
        v["records"].as_array().unwrap().len(),
        2,
        "ours and cuBLAS kept"
    );
    // The hung process is left to the driver; wait for it so later tests get an idle GPU.
    let pid = t
        .split("hung kernel's process (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .expect("the hung process named");
    let stat = std::path::Path::new("/proc").join(pid).join("stat");
    let running = || {
        std::fs::read_to_string(&stat)
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false)
    };
    let wait = std::time::Instant::now();
    while running() && wait.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// A copy that runs only in clusters of two: a block outside such a cluster copies nothing,
/// so verification fails unless the launch block's `cluster` reached the launch.
const CLUSTER_COPY: &str = r#"// roofline: family = copy
// roofline: grid = (2 * min(cdiv(bytes, 8192), 1056), 1, 1)
// roofline: block = 256
// roofline: cluster = (2, 1, 1)
extern "C" __global__ void copy_in_pairs(const void* src, void* dst, unsigned long long bytes) {
  unsigned int ranks;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(ranks));
  asm volatile("barrier.cluster.arrive;\n barrier.cluster.wait;" ::: "memory");
  if (ranks != 2) return;
  const unsigned char* s = (const unsigned char*)src;
  unsigned char* d = (unsigned char*)dst;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < bytes; i += (unsigned long long)gridDim.x * blockDim.x)
    d[i] = s[i];
}
"#;

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_launch_block_cluster_runs_the_kernel_in_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("copy_in_pairs.cu");
    std::fs::write(&src, CLUSTER_COPY).unwrap();
    let out = dir.path().join("c.json");
    let args = [
        "bench",
        "copy",
        "--kernel-file",
        src.to_str().unwrap(),
        "--impl",
        "user",
        "--bytes",
        "4000002",
    ];
    let (o, v) = bench_json(&args, &out);
    assert!(o.status.success(), "{}", text(&o));
    let recs = v.unwrap()["records"].as_array().unwrap().clone();
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["verified"], true, "{recs:?}");
}
