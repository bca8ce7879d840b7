//! A profiler range: the span of work an attached profiler measures when it was started with
//! its collection off (`ncu --profile-from-start off`). Without a profiler attached the
//! driver calls do nothing, so the range costs nothing.

use super::device::{describe, Gpu};
use crate::ffi;
use anyhow::{anyhow, Result};

/// The name of the marker kernel (cuda/marker.cu) as Nsight Compute reports it: the probe
/// child launches it first in each case's range, and the parent splits ncu's rows there.
pub const PROFILER_MARKER: &str = "roofline_profiler_marker";

impl Gpu {
    /// Runs `f` between cuProfilerStart and cuProfilerStop on this GPU's context. The range
    /// is closed even when `f` fails; `f`'s error comes first.
    pub fn profiled<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        // The driver's profiler calls act on the thread's current context.
        self.context()
            .bind_to_thread()
            .map_err(|e| anyhow!("binding the CUDA context: {}", describe(&e)))?;
        cudarc::driver::profiler_start()
            .map_err(|e| anyhow!("cuProfilerStart: {}", describe(&e)))?;
        let out = f();
        let stop = cudarc::driver::profiler_stop()
            .map_err(|e| anyhow!("cuProfilerStop: {}", describe(&e)));
        let v = out?;
        stop?;
        Ok(v)
    }

    /// Enqueues the marker kernel ([`PROFILER_MARKER`]: one thread, no memory touched).
    pub fn profiler_marker(&self) -> Result<()> {
        // SAFETY: the launcher takes only the stream, which this Gpu owns.
        let code = unsafe { ffi::rl_profiler_marker(self.raw_stream()) };
        self.check_launch(code, PROFILER_MARKER, "-")
    }
}
