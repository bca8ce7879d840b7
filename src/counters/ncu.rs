//! Running Nsight Compute: where `ncu` is, the exact command line, and running it with a
//! time limit, with its failures told apart (no permission, unknown metric, timeout).

use crate::measure::CacheMode;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What `--counters` prints, once, when there is no ncu to run.
pub const NOT_FOUND: &str = "--counters: Nsight Compute (ncu) not found; records carry no counters";

/// Where ncu is installed with the CUDA toolkit when it is not on PATH.
pub const DEFAULT_NCU: &str = "/usr/local/cuda/bin/ncu";

/// ncu's path: `ROOFLINE_NCU` when set (and nothing else, so a wrong value is noticed), else
/// the first `ncu` on PATH, else [`DEFAULT_NCU`]. None when that file does not exist.
pub fn locate() -> Option<PathBuf> {
    locate_in(
        std::env::var_os("ROOFLINE_NCU"),
        std::env::var_os("PATH"),
        Path::new(DEFAULT_NCU),
    )
}

/// [`locate`] over given values, for tests.
pub fn locate_in(
    env: Option<OsString>,
    path: Option<OsString>,
    fallback: &Path,
) -> Option<PathBuf> {
    if let Some(p) = env.filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    path.iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("ncu"))
        .chain(std::iter::once(fallback.to_path_buf()))
        .find(|p| p.is_file())
}

/// How long ncu may take per profiled case: `ROOFLINE_NCU_TIMEOUT_S`, default 300 s (a case
/// replays one launch a few times, normally seconds; the limit is for a hung kernel).
pub fn timeout() -> Duration {
    crate::gpu::seconds_from_env("ROOFLINE_NCU_TIMEOUT_S", 300)
}

/// The limit of one ncu run that profiles `cases` cases: `per_case` for each.
pub fn batch_timeout(per_case: Duration, cases: usize) -> Duration {
    per_case.saturating_mul(cases.max(1) as u32)
}

/// ncu's arguments to profile `exe probe_args` (everything after `ncu`).
///
/// - `--profile-from-start off`: only the probe's cuProfilerStart/Stop range is profiled,
///   not its setup (buffer fills, the warm-up launch).
/// - Cold: `--cache-control all` flushes the caches before each replay of the kernel.
/// - Hot: `--cache-control none` keeps what the warm-up launch left in L2, and
///   `--replay-mode application` runs the whole probe again for each pass ncu needs. Kernel
///   replay would first save the memory the kernel can reach (for a GEMV, W itself: a copy
///   through L2 of about L2's size) and so disturb the very L2 state being measured;
///   rerun, every pass sees warm-up launch, then the profiled one.
/// - `--clock-control none`: the GPU's own clocks, as in the timed runs (ncu would
///   otherwise lock them to base).
/// - `--csv --page raw --print-units base`: one CSV row per kernel, bytes and nanoseconds.
pub fn args(
    metrics: &[&str],
    cache: CacheMode,
    exe: &Path,
    probe_args: &[OsString],
) -> Vec<OsString> {
    let cache_flags: &[&str] = match cache {
        CacheMode::Cold => &["--cache-control", "all"],
        CacheMode::Hot => &["--cache-control", "none", "--replay-mode", "application"],
    };
    let mut a: Vec<OsString> = ["--profile-from-start", "off"]
        .iter()
        .chain(cache_flags)
        .chain(&[
            "--clock-control",
            "none",
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base",
            "--metrics",
        ])
        .map(OsString::from)
        .collect();
    a.push(metrics.join(",").into());
    a.push(exe.as_os_str().to_owned());
    a.extend(probe_args.iter().cloned());
    a
}

/// Why an ncu run gave no counters.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The user may not read the GPU's performance counters (ERR_NVGPUCTRPERM): no case
    /// will do better, so the pass stops.
    Permission(String),
    /// ncu does not know these metrics on this GPU or version; the run is retried without.
    UnknownMetrics(Vec<String>),
    Timeout(Duration),
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Permission(s) => write!(
                f,
                "no permission to read the GPU's performance counters ({s}); see \
                 https://developer.nvidia.com/ERR_NVGPUCTRPERM"
            ),
            Failure::UnknownMetrics(m) => write!(f, "ncu does not know {}", m.join(", ")),
            Failure::Timeout(d) => write!(
                f,
                "ncu did not finish within {} s (ROOFLINE_NCU_TIMEOUT_S sets the limit)",
                d.as_secs()
            ),
            Failure::Other(s) => f.write_str(s),
        }
    }
}

/// The metrics ncu reported it could not find, as the names given to it. ncu writes
/// `==ERROR== Failed to find metric NAME`, or `regex:^NAME\.(sum|...)$` for a base name.
pub fn unknown_metrics(output: &str, asked: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in output.lines() {
        let Some(rest) = l.split("Failed to find metric").nth(1) else {
            continue;
        };
        let name: String = rest
            .trim()
            .trim_start_matches("regex:")
            .trim_start_matches('^')
            .replace('\\', "")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let name = name.trim_end_matches('.');
        for m in asked {
            let hit = *m == name || m.strip_prefix(name).is_some_and(|r| r.starts_with('.'));
            if hit && !out.iter().any(|o| o == m) {
                out.push(m.to_string());
            }
        }
    }
    out
}

/// What ncu's output says went wrong, when it gave no CSV.
pub fn classify(stdout: &str, stderr: &str, asked: &[&str]) -> Failure {
    let all = format!("{stdout}\n{stderr}");
    if let Some(l) = all.lines().find(|l| l.contains("ERR_NVGPUCTRPERM")) {
        return Failure::Permission(l.trim_start_matches("==ERROR==").trim().to_string());
    }
    let unknown = unknown_metrics(&all, asked);
    if !unknown.is_empty() {
        return Failure::UnknownMetrics(unknown);
    }
    // ncu's errors and the probe's own ("error: ..."), else the last lines it printed.
    let said: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("==ERROR==") || l.starts_with("error:"))
        .collect();
    let text = if said.is_empty() {
        let lines: Vec<&str> = all.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join(" | ")
    } else {
        said.join(" | ")
    };
    Failure::Other(if text.is_empty() {
        "ncu printed nothing".into()
    } else {
        text
    })
}

/// Runs `ncu args` and returns its stdout and stderr, or a timeout. The run gets a process
/// group of its own, so that on a timeout the profiled program dies with ncu.
pub fn run(
    ncu: &Path,
    args: &[OsString],
    limit: Duration,
) -> Result<(String, String, bool), Failure> {
    use std::os::unix::process::CommandExt;
    let spawn = || {
        Command::new(ncu)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
    };
    // A script written just before (a wrapper, a test's stand-in) can be briefly "busy"
    // while another thread's fork still holds it open: try again.
    let mut tries = 0;
    let mut child = loop {
        match spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            r => break r,
        }
    }
    .map_err(|e| Failure::Other(format!("cannot start {}: {e}", ncu.display())))?;
    // Read both pipes while waiting, so a full pipe cannot stall ncu.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut s);
            }
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as _));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > limit => {
                kill_group(child.id());
                let _ = child.wait();
                return Err(Failure::Timeout(limit));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(Failure::Other(format!("waiting for ncu: {e}"))),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok((stdout, stderr, status.success()))
}

fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals the process group the child leads (it was
    // started with process_group(0)); it touches no memory of ours.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: &[OsString]) -> Vec<String> {
        v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_exact_command_for_a_cold_and_a_hot_case() {
        let probe: Vec<OsString> = [
            "--device",
            "0",
            "probe-case",
            "gemv",
            "--m",
            "1",
            "--case",
            "0",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let exe = Path::new("/opt/rl/roofline");
        let cold = strs(&args(&["a.sum", "b.pct"], CacheMode::Cold, exe, &probe));
        assert_eq!(
            cold.join(" "),
            "--profile-from-start off --cache-control all --clock-control none --csv --page raw \
             --print-units base --metrics a.sum,b.pct /opt/rl/roofline --device 0 probe-case \
             gemv --m 1 --case 0"
        );
        let hot = strs(&args(&["a.sum"], CacheMode::Hot, exe, &probe));
        assert_eq!(
            hot.join(" "),
            "--profile-from-start off --cache-control none --replay-mode application \
             --clock-control none --csv --page raw --print-units base --metrics a.sum \
             /opt/rl/roofline --device 0 probe-case gemv --m 1 --case 0"
        );
    }

    #[test]
    fn ncu_is_looked_for_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let on_path = bin.join("ncu");
        std::fs::write(&on_path, "").unwrap();
        let fallback = dir.path().join("fallback-ncu");
        std::fs::write(&fallback, "").unwrap();
        let path = Some(OsString::from(format!("/nonexistent:{}", bin.display())));
        // the env var wins, and only it counts
        assert_eq!(
            locate_in(Some(fallback.clone().into()), path.clone(), &fallback),
            Some(fallback.clone())
        );
        assert_eq!(
            locate_in(Some("/no/such/ncu".into()), path.clone(), &fallback),
            None
        );
        assert_eq!(locate_in(None, path, &fallback), Some(on_path));
        assert_eq!(
            locate_in(None, Some("/nonexistent".into()), &fallback),
            Some(fallback)
        );
        assert_eq!(locate_in(None, None, &dir.path().join("missing")), None);
        assert!(NOT_FOUND.contains("not found") && NOT_FOUND.starts_with("--counters"));
    }

    #[test]
    fn failures_are_told_apart() {
        let asked = [
            "dram__bytes_read.sum",
            "sm__ops_path_tensor_op_hmma_src_fp16.sum",
            "x.pct",
        ];
        let perm = classify(
            "==PROF== Connected to process 9\n==ERROR== ERR_NVGPUCTRPERM - The user does not \
             have permission to access NVIDIA GPU Performance Counters on the target device 0.\n",
            "",
            &asked,
        );
        assert!(matches!(&perm, Failure::Permission(s) if s.starts_with("ERR_NVGPUCTRPERM")));
        let unknown = classify(
            "==ERROR== Failed to find metric sm__ops_path_tensor_op_hmma_src_fp16.sum\n",
            "",
            &asked,
        );
        assert_eq!(
            unknown,
            Failure::UnknownMetrics(vec!["sm__ops_path_tensor_op_hmma_src_fp16.sum".into()])
        );
        // the regex form ncu uses for a base name
        let re = unknown_metrics(
            "==ERROR== Failed to find metric regex:^x\\.(sum|min|max|avg|pct|ratio|max_rate)$",
            &asked,
        );
        assert_eq!(re, vec!["x.pct".to_string()]);
        let other = classify(
            "==PROF== Connected\n",
            "error: out of GPU memory: 4 GiB\n",
            &asked,
        );
        assert_eq!(
            other,
            Failure::Other("error: out of GPU memory: 4 GiB".into())
        );
        assert_eq!(
            classify("", "", &asked),
            Failure::Other("ncu printed nothing".into())
        );
        assert!(Failure::Timeout(Duration::from_secs(5))
            .to_string()
            .contains("5 s"));
    }

    #[test]
    fn the_limit_grows_with_the_cases_of_a_run() {
        let s = Duration::from_secs;
        assert_eq!(batch_timeout(s(300), 1), s(300));
        assert_eq!(batch_timeout(s(300), 6), s(1800));
        assert_eq!(batch_timeout(s(300), 0), s(300));
    }

    #[test]
    fn a_run_past_its_limit_is_stopped() {
        let r = run(
            Path::new("/bin/sh"),
            &["-c".into(), "sleep 30".into()],
            Duration::from_millis(200),
        );
        assert_eq!(r, Err(Failure::Timeout(Duration::from_millis(200))));
        let (out, _, ok) = run(
            Path::new("/bin/sh"),
            &["-c".into(), "echo '\"ID\"'; exit 0".into()],
            Duration::from_secs(20),
        )
        .unwrap();
        assert!(ok && out.contains("\"ID\""));
    }
}
