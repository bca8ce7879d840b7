//! Errors a user can act on, each with its exit code. Everything else is an internal error.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum LabError {
    /// Bad arguments: caught before the GPU is touched.
    #[error("{0}")]
    Usage(String),
    /// No driver, no GPU, or the GPU index does not exist.
    #[error("{0}")]
    NoGpu(String),
    /// The driver is older than the CUDA version the kernels were built with.
    #[error("{0}")]
    DriverTooOld(String),
    /// A buffer did not fit in device memory.
    #[error("out of GPU memory: {0}")]
    OutOfMemory(String),
    /// A kernel faulted or failed to launch.
    #[error("kernel {kernel} ({shape}) failed: {detail}")]
    KernelFault {
        kernel: String,
        shape: String,
        detail: String,
    },
    /// A result did not match its reference.
    #[error("verification failed: {0}")]
    Verification(String),
    /// `compare` found a slowdown beyond threshold and noise.
    #[error("performance regression: {0}")]
    Regression(String),
    /// Ctrl-C: what was measured before it has been written; the run is incomplete.
    #[error("interrupted: {0}")]
    Interrupted(String),
}

impl LabError {
    pub fn exit_code(&self) -> i32 {
        match self {
            LabError::Usage(_)
            | LabError::NoGpu(_)
            | LabError::DriverTooOld(_)
            | LabError::OutOfMemory(_) => 2,
            LabError::KernelFault { .. } => 3,
            LabError::Interrupted(_) => 130,
            LabError::Verification(_) | LabError::Regression(_) => 1,
        }
    }
}

/// Shorthand for a usage error as an anyhow error.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    LabError::Usage(msg.into()).into()
}

/// A kernel that never finished cannot be cleaned up: freeing its buffers or its context
/// waits on it forever. After what was measured is written, such an error ends the process
/// at once (exit 3) instead of returning through those destructors.
pub fn exit_now_if_hung(err: &anyhow::Error) {
    let hung = err.chain().any(|e| {
        matches!(e.downcast_ref::<LabError>(),
            Some(LabError::KernelFault { detail, .. }) if detail.contains("did not finish"))
    });
    if hung {
        use std::io::Write;
        eprintln!("error: {err:#}");
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        crate::supervise::report_hang(3);
        // SAFETY: _exit ends the process without running atexit handlers, among them the
        // CUDA runtime's teardown, which would wait on the spinning kernel; the OS reclaims
        // the context. Everything worth keeping was written before this call.
        unsafe { libc::_exit(3) }
    }
}

/// The exit code for any error: a LabError anywhere in the chain decides, else 1.
pub fn exit_code_of(err: &anyhow::Error) -> i32 {
    err.chain()
        .find_map(|e| e.downcast_ref::<LabError>())
        .map_or(1, LabError::exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_kind() {
        assert_eq!(exit_code_of(&usage("x")), 2);
        let fault: anyhow::Error = LabError::KernelFault {
            kernel: "k".into(),
            shape: "1x1".into(),
            detail: "illegal address".into(),
        }
        .into();
        assert_eq!(exit_code_of(&fault.context("while benchmarking")), 3);
        assert_eq!(exit_code_of(&anyhow::anyhow!("other")), 1);
        assert_eq!(exit_code_of(&LabError::Interrupted("x".into()).into()), 130);
    }
}
