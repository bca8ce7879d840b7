//! Running a user's kernel where its hang cannot hold the command hostage.
//!
//! A kernel that never finishes is detected by the time limit on every synchronization
//! (`ROOFLINE_SYNC_TIMEOUT_S`); the tool then writes what it measured and ends itself with
//! `_exit(3)`. But the process that owns the CUDA context cannot leave: closing its device
//! files waits in the driver until the spinning kernel is stopped (on driver 580 that took
//! minutes, or never). So a command that loads a user's kernel (`--kernel-file`, `--plugin`)
//! runs as two processes: this one, which holds no GPU state, and a child running the same
//! command. The child reports a hang through a verdict file before its `_exit`, and the
//! parent then returns the verdict's exit code at once, leaving the child to the driver.
//! Any other ending of the child (success, a wrong result, a fault) is passed through as its
//! exit code. Ctrl-C reaches both processes (one process group): the child handles it as
//! always (finish the case, save, exit 130) and the parent waits for that; a SIGTERM sent to
//! the parent alone is passed on to the child.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Set in the child: the verdict file to write before a hang's `_exit`.
const VERDICT_ENV: &str = "ROOFLINE_VERDICT_FILE";
/// `ROOFLINE_SUPERVISE=0` runs a user's kernel in this process (for a debugger).
const OPT_OUT_ENV: &str = "ROOFLINE_SUPERVISE";

/// Whether this process should start the child: the command loads a user's kernel, this is
/// not already the child, and the user did not opt out.
pub fn wanted(loads_user_kernel: bool) -> bool {
    loads_user_kernel
        && std::env::var_os(VERDICT_ENV).is_none()
        && std::env::var(OPT_OUT_ENV).map_or(true, |v| v != "0")
}

/// Runs this command again as a child and returns the exit code to leave with.
pub fn run_child() -> Result<i32> {
    let exe = std::env::current_exe().context("finding the roofline executable to rerun")?;
    let verdict = verdict_path();
    let _ = std::fs::remove_file(&verdict);
    // The parent only waits: Ctrl-C is the child's to handle (it gets the same signal). A
    // handler, unlike SIG_IGN, is not inherited across exec.
    let _ = ctrlc::set_handler(|| {});
    let mut child = Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .env(VERDICT_ENV, &verdict)
        .spawn()
        .with_context(|| format!("starting {}", exe.display()))?;
    forward_sigterm_to(child.id());
    loop {
        if let Some(status) = child
            .try_wait()
            .context("waiting for the measuring process")?
        {
            let _ = std::fs::remove_file(&verdict);
            return Ok(exit_code(status));
        }
        if let Some(code) = read_verdict(&verdict) {
            let _ = std::fs::remove_file(&verdict);
            eprintln!(
                "note: the hung kernel's process ({}) stays until the driver stops the \
                 kernel; the GPU is busy until then",
                child.id()
            );
            let _ = child.kill();
            return Ok(code);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// In the child, after a hang was reported and the results written: tells the parent the
/// exit code and lets go of the terminal and pipes, so that nothing waits on this process's
/// teardown. A no-op in an unsupervised process.
pub fn report_hang(code: i32) {
    let Some(path) = std::env::var_os(VERDICT_ENV).map(PathBuf::from) else {
        return;
    };
    // Written whole, then renamed: the parent never reads half a verdict.
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, code.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    // SAFETY: closes this process's standard streams (already flushed by the caller); the
    // process ends with _exit right after, and nothing writes to them in between.
    unsafe {
        libc::close(1);
        libc::close(2);
    }
}

/// The child's pid for the SIGTERM handler (0: none yet).
static CHILD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn pass_sigterm(_: libc::c_int) {
    let pid = CHILD.load(std::sync::atomic::Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe; the pid is our own child's.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
}

/// A `kill PID` aimed at this process reaches the measuring child too, which would otherwise
/// go on alone; this process then returns the child's exit (143 for SIGTERM).
fn forward_sigterm_to(pid: u32) {
    CHILD.store(pid as i32, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: installs a handler that only reads an atomic and calls kill, both
    // async-signal-safe; no other code of this process handles SIGTERM.
    unsafe {
        libc::signal(
            libc::SIGTERM,
            pass_sigterm as *const () as libc::sighandler_t,
        );
    }
}

fn verdict_path() -> PathBuf {
    std::env::temp_dir().join(format!("roofline-verdict-{}", std::process::id()))
}

fn read_verdict(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The child's exit code; a child ended by a signal gives 128 + the signal, as a shell does.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_read_only_when_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v");
        assert_eq!(read_verdict(&p), None);
        std::fs::write(&p, "").unwrap();
        assert_eq!(read_verdict(&p), None);
        std::fs::write(&p, "3").unwrap();
        assert_eq!(read_verdict(&p), Some(3));
    }

    #[test]
    fn a_signal_gives_128_plus_its_number() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(exit_code(std::process::ExitStatus::from_raw(9)), 137);
        assert_eq!(exit_code(std::process::ExitStatus::from_raw(3 << 8)), 3);
    }
}
