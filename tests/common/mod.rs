//! Helpers the CLI tests of users' kernels share (tests/cli_user_kernels.rs,
//! tests/cli_user_plugin.rs): the binary to run, the examples folder, output as text.
// Each test crate compiles this module and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test: $ROOFLINE_BIN (a bundle on a GPU machine), else cargo's.
pub fn roofline() -> Command {
    match std::env::var("ROOFLINE_BIN") {
        Ok(b) => Command::new(b),
        Err(_) => Command::new(env!("CARGO_BIN_EXE_roofline")),
    }
}

/// examples/`sub`: the crate's, else relative to the working folder (a bundle's run).
pub fn examples(sub: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(sub);
    if here.is_dir() {
        here
    } else {
        Path::new("examples").join(sub)
    }
}

pub fn run(args: &[&str]) -> Output {
    roofline().args(args).output().expect("run roofline")
}

/// stdout then stderr.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A short bench run writing JSON to `out`: its output and the results, when written.
pub fn bench_json(args: &[&str], out: &Path) -> (Output, Option<serde_json::Value>) {
    let mut a: Vec<&str> = args.to_vec();
    a.extend(["--max-time-ms", "100", "--out", out.to_str().unwrap()]);
    let o = run(&a);
    let v = std::fs::read_to_string(out)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (o, v)
}

/// The broken kernels' runs: ours and cuBLAS first (kept when the user's kernel fails), at an
/// awkward small GEMV shape.
pub const OURS_CUBLAS_THEN_USER: [&str; 8] = [
    "--impl",
    "ours,cublas,user",
    "--m",
    "2",
    "--n",
    "1000",
    "--k",
    "300",
];
