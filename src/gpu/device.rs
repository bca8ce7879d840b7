//! Opening a GPU with clear errors, the one stream all work goes to, and event timing.

use super::props::DeviceProps;
use crate::error::LabError;
use crate::ffi;
use anyhow::{Context, Result};
use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DriverError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The CUDA version the kernels were compiled for: the driver must support at least this.
pub fn built_cuda_version() -> i32 {
    // SAFETY: a constant-returning C function with no arguments.
    unsafe { ffi::rl_runtime_version() }
}

/// How long a synchronization may wait before the run is declared hung: 120 s, or
/// ROOFLINE_SYNC_TIMEOUT_S (a shorter limit for kernels under development, and for tests).
fn sync_timeout() -> Duration {
    seconds_from_env("ROOFLINE_SYNC_TIMEOUT_S", 120)
}

/// A time limit in whole seconds from the environment variable `var` (a positive integer),
/// else `default` seconds.
pub fn seconds_from_env(var: &str, default: u64) -> Duration {
    let s = std::env::var(var)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(default);
    Duration::from_secs(s)
}

pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    props: DeviceProps,
    blas: std::sync::OnceLock<super::BlasHandles>,
}

impl Gpu {
    /// Opens device `ordinal`. Every way this can fail maps to a LabError with exit code 2.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        // SAFETY: only tries to dlopen libcuda; no CUDA call is made.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(LabError::NoGpu(
                "no CUDA GPU: the NVIDIA driver library (libcuda.so) is not installed on this \
                 machine. Run roofline on a machine with an NVIDIA GPU and driver 580 or newer."
                    .into(),
            )
            .into());
        }
        if let Err(e) = cudarc::driver::result::init() {
            return Err(LabError::NoGpu(format!(
                "no CUDA GPU: the driver did not initialise ({}). Check `nvidia-smi`.",
                describe(&e)
            ))
            .into());
        }
        let count = cudarc::driver::result::device::get_count().map_err(|e| {
            LabError::NoGpu(format!(
                "no CUDA GPU: cannot count devices ({})",
                describe(&e)
            ))
        })?;
        if count <= 0 {
            return Err(LabError::NoGpu("no CUDA GPU: the driver sees no devices".into()).into());
        }
        if ordinal >= count as usize {
            return Err(LabError::Usage(format!(
                "--device {ordinal} does not exist: this machine has {count} GPU(s), numbered 0 to {}",
                count - 1
            ))
            .into());
        }
        let driver = driver_cuda_version()?;
        let built = built_cuda_version();
        if driver < built {
            return Err(LabError::DriverTooOld(format!(
                "the NVIDIA driver supports CUDA {} but roofline was built with CUDA {}: update \
                 the driver (CUDA 13.0 needs driver 580 or newer) or rebuild with an older \
                 toolkit (CUDA_HOME).",
                DeviceProps::cuda_version_string(driver),
                DeviceProps::cuda_version_string(built)
            ))
            .into());
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| LabError::NoGpu(format!("cannot open GPU {ordinal}: {}", describe(&e))))?;
        // SAFETY: all work in this program goes to the single stream below, so cudarc's
        // per-buffer cross-stream events are unnecessary; without them raw pointers handed
        // to our kernels and to graph capture carry no hidden event records.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().context("creating a CUDA stream")?;
        let props = DeviceProps::read(&ctx, driver)?;
        Ok(Gpu {
            ctx,
            stream,
            props,
            blas: std::sync::OnceLock::new(),
        })
    }

    pub fn props(&self) -> &DeviceProps {
        &self.props
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The raw stream handle for our C launchers (a CUstream is a cudaStream_t).
    pub fn raw_stream(&self) -> *mut std::ffi::c_void {
        self.stream.cu_stream() as *mut std::ffi::c_void
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// cuBLAS and cuBLASLt handles bound to our stream, created on first use.
    pub fn blas(&self) -> Result<&super::BlasHandles> {
        if let Some(b) = self.blas.get() {
            return Ok(b);
        }
        let made = super::BlasHandles::new(&self.stream)?;
        Ok(self.blas.get_or_init(|| made))
    }

    /// Free and total device memory in bytes.
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        let (free, total) = self.ctx.mem_get_info()?;
        Ok((free as u64, total as u64))
    }

    /// Waits for all queued work; a fault in it is reported as a KernelFault naming `what`
    /// (kernel and shape). A run still not finished after sync_timeout() is reported as hung.
    pub fn sync(&self, kernel: &str, shape: &str) -> Result<()> {
        let fault = |detail: String| LabError::KernelFault {
            kernel: kernel.to_string(),
            shape: shape.to_string(),
            detail,
        };
        let done = self
            .ctx
            .new_event(None)
            .and_then(|e| e.record(&self.stream).map(|_| e))
            .map_err(|e| fault(describe(&e)))?;
        let start = Instant::now();
        let limit = sync_timeout();
        loop {
            match done.try_is_complete() {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => return Err(fault(describe(&e)).into()),
            }
            if start.elapsed() > limit {
                return Err(fault(format!(
                    "did not finish within {} s (hung kernel?)",
                    limit.as_secs()
                ))
                .into());
            }
            if start.elapsed() < Duration::from_millis(2) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }

    /// Turns a launcher's return code into a Result naming the kernel and shape.
    pub fn check_launch(&self, code: i32, kernel: &str, shape: &str) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        Err(LabError::KernelFault {
            kernel: kernel.to_string(),
            shape: shape.to_string(),
            detail: launch_error_string(code),
        }
        .into())
    }

    /// Debug aid: launches a kernel that writes through a bad pointer, then synchronises, so
    /// the fault path can be exercised on real hardware. Always returns the fault as an error.
    pub fn inject_fault(&self, kernel: &str, shape: &str) -> Result<()> {
        // SAFETY: the kernel faults on purpose; the error is reported by sync below and the
        // process exits after it (the context is unusable afterwards).
        let code = unsafe { ffi::rl_inject_fault(self.raw_stream()) };
        self.check_launch(code, kernel, shape)?;
        self.sync(kernel, shape)
    }

    /// A pair of timing events (cudarc's default events have timing disabled).
    pub fn timer(&self) -> Result<Timer> {
        let mk = || self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        Ok(Timer {
            start: mk()?,
            stop: mk()?,
        })
    }
}

/// Two events around a region of the stream.
pub struct Timer {
    start: CudaEvent,
    stop: CudaEvent,
}

impl Timer {
    pub fn start(&self, gpu: &Gpu) -> Result<()> {
        Ok(self.start.record(gpu.stream())?)
    }
    pub fn stop(&self, gpu: &Gpu) -> Result<()> {
        Ok(self.stop.record(gpu.stream())?)
    }
    /// Milliseconds between the two records; call after a sync.
    pub fn elapsed_ms(&self) -> Result<f64> {
        Ok(self.start.elapsed_ms(&self.stop)? as f64)
    }
}

pub fn launch_error_string(code: i32) -> String {
    // SAFETY: cudaGetErrorString returns a static C string for any code.
    let s = unsafe { std::ffi::CStr::from_ptr(ffi::rl_error_string(code)) };
    format!("{} (cudaError {code})", s.to_string_lossy())
}

fn driver_cuda_version() -> Result<i32> {
    let mut v = 0i32;
    // SAFETY: cuDriverGetVersion writes one int; the library is known to be present.
    let r = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    if r != CUresult::CUDA_SUCCESS {
        return Err(LabError::NoGpu(format!("cannot read the driver version ({r:?})")).into());
    }
    Ok(v)
}

/// A driver error as its name and description.
pub fn describe(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(n), Ok(t)) => format!("{n}: {t}"),
        _ => format!("{e:?}"),
    }
}
