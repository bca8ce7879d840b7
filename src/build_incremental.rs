//! build.rs's incremental CUDA compile (not part of the library): one object per .cu file,
//! rebuilt only when the file, a header it includes (nvcc's own dependency list) or the
//! compile command changed; stale files compile in parallel (cargo's NUM_JOBS).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// One .cu file's outputs in `dir`: the object, nvcc's dependency list, and the command that
/// made them.
struct Unit {
    src: PathBuf,
    obj: PathBuf,
    dep: PathBuf,
    cmd: PathBuf,
}

impl Unit {
    fn new(src: &Path, dir: &Path) -> Unit {
        // cuda/add_rmsnorm/add_rmsnorm.cu -> add_rmsnorm__add_rmsnorm
        let rel = src.strip_prefix("cuda").unwrap_or(src).with_extension("");
        let stem = rel.to_string_lossy().replace(['/', '\\'], "__");
        Unit {
            src: src.to_path_buf(),
            obj: dir.join(format!("{stem}.o")),
            dep: dir.join(format!("{stem}.d")),
            cmd: dir.join(format!("{stem}.cmd")),
        }
    }

    /// The nvcc command that compiles this unit.
    fn command(&self, build: &cc::Build) -> Command {
        let mut c = build.get_compiler().to_command();
        c.arg("-MD")
            .arg("-MF")
            .arg(&self.dep)
            .arg("-c")
            .arg(&self.src)
            .arg("-o")
            .arg(&self.obj);
        c
    }

    /// Up to date: the object exists, was made by the same command, and is newer than the
    /// source and every header in its dependency list.
    fn fresh(&self, cmd_text: &str) -> bool {
        let Some(built) = mtime(&self.obj) else {
            return false;
        };
        if std::fs::read_to_string(&self.cmd).ok().as_deref() != Some(cmd_text) {
            return false;
        }
        let Ok(deps) = std::fs::read_to_string(&self.dep) else {
            return false;
        };
        dependencies(&deps)
            .iter()
            .all(|d| mtime(Path::new(d)).is_some_and(|t| t <= built))
    }
}

/// The program and its arguments: what decides the object. (Not the environment, which
/// carries cargo's per-build jobserver handles and would make every object look stale.)
fn command_text(c: &Command) -> String {
    std::iter::once(c.get_program())
        .chain(c.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// The prerequisites of a make-style dependency file ("obj: a.cu b.h \\ c.h", continued lines).
fn dependencies(text: &str) -> Vec<String> {
    let body = text.split_once(": ").map_or(text, |(_, rest)| rest);
    body.split_whitespace()
        .filter(|t| *t != "\\")
        .map(str::to_string)
        .collect()
}

/// Compiles the stale units of `sources` into `dir` and returns every object.
pub fn compile_all(build: &cc::Build, sources: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).expect("object folder in OUT_DIR");
    let units: Vec<Unit> = sources.iter().map(|s| Unit::new(s, dir)).collect();
    let stale: Vec<(&Unit, String)> = units
        .iter()
        .map(|u| (u, command_text(&u.command(build))))
        .filter(|(u, text)| !u.fresh(text))
        .collect();
    let jobs = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or(2)
        .max(1);
    for chunk in stale.chunks(jobs) {
        std::thread::scope(|s| {
            let running: Vec<_> = chunk
                .iter()
                .map(|(u, text)| s.spawn(move || compile(build, u, text)))
                .collect();
            for r in running {
                r.join().expect("nvcc thread");
            }
        });
    }
    units.into_iter().map(|u| u.obj).collect()
}

fn compile(build: &cc::Build, u: &Unit, cmd_text: &str) {
    // A failed compile leaves no command record, so the next build tries again.
    let _ = std::fs::remove_file(&u.cmd);
    let out = u.command(build).output().unwrap_or_else(|e| {
        panic!(
            "roofline-lab: could not run nvcc for {}: {e}",
            u.src.display()
        )
    });
    let log = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprintln!("{log}");
        eprintln!("roofline-lab: nvcc failed on {}", u.src.display());
        std::process::exit(1);
    }
    // ptxas reports (ROOFLINE_PTXAS_VERBOSE=1) and nvcc warnings surface as build warnings.
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        println!("cargo:warning={}: {line}", u.src.display());
    }
    std::fs::write(&u.cmd, cmd_text).expect("write the command record");
}
