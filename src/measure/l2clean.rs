//! Leaves L2 clean before a cold kernel-timed sample: a read of twice L2 through a scratch
//! buffer evicts what the previous sample wrote, so its dirty lines are written back before
//! the events start instead of during the kernel under test (5-6 µs of a 64 µs ReLU on the
//! H200; Nsight Compute's --cache-control all does the same before each kernel it times).

use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use anyhow::Result;

pub struct L2Cleaner {
    scratch: DevBuf<u8>,
    sink: DevBuf<f32>,
}

impl L2Cleaner {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let bytes = (2 * gpu.props().l2_bytes as usize).div_ceil(1 << 16) << 16;
        // SAFETY: a pure query.
        let sink_len = unsafe { ffi::rl_read_sink_floats() };
        Ok(L2Cleaner {
            scratch: DevBuf::zeros_bytes(gpu, bytes, "L2 cleaning scratch")?,
            sink: DevBuf::zeros(gpu, sink_len, "L2 cleaning sink")?,
        })
    }

    /// Enqueues the read (it runs before whatever is enqueued next).
    pub fn clean(&self, gpu: &Gpu) -> Result<()> {
        // SAFETY: scratch holds `bytes()` bytes and sink rl_read_sink_floats floats, both
        // owned by self for the launch's lifetime.
        let code = unsafe {
            ffi::rl_read(
                self.scratch.ptr(gpu),
                self.scratch.bytes(),
                self.sink.ptr(gpu) as *mut f32,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(code, "L2 cleaning read", "-")
    }
}
