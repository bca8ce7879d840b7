//! A profiler range: the span of work an attached profiler measures when it was started with
//! its collection off (`ncu --profile-from-start off`). Without a profiler attached the
//! driver calls do nothing, so the range costs nothing.

use super::device::{describe, Gpu};
use anyhow::{anyhow, Result};

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
}
