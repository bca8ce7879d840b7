//! The blocking kernel of `kernel` timing: holds the stream while the host enqueues the start
//! event, the kernel under test and the stop event, then lets them run back to back, so the
//! events time the kernel alone (no host launch latency), one cold launch at a time.

use crate::ffi;
use crate::gpu::Gpu;
use anyhow::{bail, Result};

/// How long the blocking kernel waits for the host before it lets the stream go on its own:
/// far above an enqueue (microseconds), short enough that a launcher that synchronises
/// costs a fraction of a second rather than a hang.
const LIMIT_NS: u64 = 200_000_000;

/// Two mapped host flags: [0] releases the blocking kernel, [1] is set by it on a time-out.
pub struct Blocker {
    host: *mut i32,
    device: *mut i32,
}

impl Blocker {
    pub fn new() -> Result<Self> {
        let (mut host, mut device) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: the launcher writes two valid pointers (or none, with an error code) to a
        // 2-int mapped host allocation that Drop frees.
        let code = unsafe { ffi::rl_host_flags_alloc(&mut host, &mut device, 2) };
        if code != 0 || host.is_null() {
            bail!(
                "allocating the blocking kernel's host flags: {}",
                crate::gpu::launch_error_string(code)
            );
        }
        Ok(Blocker { host, device })
    }

    /// Clears the flags and enqueues the blocking kernel; everything enqueued until
    /// `release` waits behind it.
    pub fn block(&self, gpu: &Gpu) -> Result<()> {
        // SAFETY: host points to 2 ints of pinned memory owned by self; the GPU reads them
        // only while a blocking kernel runs, and the previous one has finished (the caller
        // synchronised after the last sample). Volatile: the GPU reads them behind our back.
        unsafe {
            std::ptr::write_volatile(self.host, 0);
            std::ptr::write_volatile(self.host.add(1), 0);
        }
        // SAFETY: device pointers of the same allocation, valid for the kernel's lifetime.
        let code = unsafe {
            ffi::rl_block_stream(self.device, self.device.add(1), LIMIT_NS, gpu.raw_stream())
        };
        gpu.check_launch(code, "blocking kernel", "-")
    }

    /// Lets the stream go on.
    pub fn release(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: as in `block`; a volatile store the spinning GPU thread will observe.
        unsafe { std::ptr::write_volatile(self.host, 1) };
    }

    /// Whether the last blocking kernel gave up waiting (after the stream was synchronised):
    /// the sample then includes host time and is dropped.
    pub fn timed_out(&self) -> bool {
        // SAFETY: read after synchronisation; the GPU no longer writes it.
        unsafe { std::ptr::read_volatile(self.host.add(1)) != 0 }
    }
}

impl Drop for Blocker {
    fn drop(&mut self) {
        // Never block the stream with a dangling flag: release first (a no-op when idle).
        self.release();
        // SAFETY: allocated by rl_host_flags_alloc; freed once. cudaFreeHost synchronises
        // the device, so no blocking kernel still reads it.
        unsafe {
            ffi::rl_host_flags_free(self.host);
        }
    }
}
