//! Bring your own kernel: a user's .cu file, compiled at run time with NVRTC for the exact
//! GPU and checked against its family's signature, or a user's shared library exporting the
//! family's launcher (a plugin); either runs through the family's own cases, so it gets
//! every check and every timing mode ours get (records with impl "user").

pub mod compile;
pub mod geometry;
pub mod kernel;
pub mod plugin;
pub mod signature;
pub mod source;

pub use kernel::{Arg, UserKernel, UserSpec};
pub use source::UserSource;

use crate::dtype::Elem;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::Verification;
use anyhow::Result;

/// An output buffer for a case: guarded (poison before and after it, checked after the run)
/// when a user's kernel writes it, plain for ours.
pub fn output<T: Elem>(gpu: &Gpu, guarded: bool, len: usize, what: &str) -> Result<DevBuf<T>> {
    if guarded {
        DevBuf::poisoned_guarded(gpu, len, what)
    } else {
        DevBuf::poisoned(gpu, len, what)
    }
}

/// `v` failed, with the place named, when a run wrote outside any of `outs` (a no-op for
/// unguarded buffers).
pub fn with_guards<T: Elem>(
    gpu: &Gpu,
    mut v: Verification,
    outs: &[(&str, &DevBuf<T>)],
) -> Result<Verification> {
    for (name, b) in outs {
        if let Some(breach) = b.guard_breach(gpu)? {
            v.passed = false;
            v.detail = format!("{name} {breach}; {}", v.detail);
        }
    }
    Ok(v)
}

/// The records' variant for a user kernel: file, symbol and the file's hash (the source's,
/// or the plugin library's).
pub fn variant_label(k: &UserKernel) -> String {
    format!("{}@{}", k.label(), &k.sha()[..12])
}
