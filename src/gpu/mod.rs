//! The GPU runtime: one device, one stream, timing events, buffers and library handles,
//! all on cudarc with the driver loaded dynamically (so the binary starts without a GPU and
//! says so clearly).

mod buffers;
mod device;
mod libs;
mod profiler;
mod props;

pub use buffers::{DevBuf, RandomFill, POISON_BF16, POISON_F16};
pub use device::{built_cuda_version, describe, launch_error_string, seconds_from_env, Gpu, Timer};
pub use libs::BlasHandles;
pub use profiler::PROFILER_MARKER;
pub use props::DeviceProps;
