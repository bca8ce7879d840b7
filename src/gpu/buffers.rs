//! Device buffers: allocation with a clear out-of-memory error, seeded random fill, poison,
//! and download. Raw pointers for the C launchers come only from here.

use super::Gpu;
use crate::dtype::Elem;
use crate::error::LabError;
use crate::ffi;
use anyhow::Result;
use cudarc::driver::sys::cudaError_enum;
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr};
use half::f16;
use std::ffi::c_void;

/// fp16 quiet NaN with a payload no kernel produces: an output element still holding it
/// after a run was never written.
pub const POISON_F16: u16 = 0x7e5a;
/// The same for bf16 outputs (a quiet NaN: exponent all ones, payload 0x55; kernels round NaN
/// to 0x7fff). fp16's pattern read as bf16 would be a finite number.
pub const POISON_BF16: u16 = 0x7fd5;

/// Elements of poison kept before and after a guarded output (512 bytes of fp16 each side:
/// the inner pointer keeps the allocation's 256-byte alignment).
pub const GUARD_ELEMS: usize = 256;

pub struct DevBuf<T> {
    slice: CudaSlice<T>,
    /// Guard elements before and after the buffer's own (0: none).
    guard: usize,
}

impl<T: DeviceRepr> DevBuf<T> {
    /// Uninitialised device memory for `len` elements (callers fill it before reading).
    pub fn alloc(gpu: &Gpu, len: usize, what: &str) -> Result<Self> {
        let len = len.max(1);
        // SAFETY: the memory is uninitialised; every constructor path below fills it
        // (random fill or poison) before any kernel reads it.
        let slice = unsafe { gpu.stream().alloc::<T>(len) }.map_err(|e| {
            if e.0 == cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
                let mib = (len * std::mem::size_of::<T>()) as f64 / (1 << 20) as f64;
                anyhow::Error::from(LabError::OutOfMemory(format!(
                    "{what} needs {mib:.0} MiB more than is free; use a smaller size or --hot \
                     (which needs one buffer set instead of several)"
                )))
            } else {
                anyhow::Error::from(e).context(format!("allocating {what}"))
            }
        })?;
        Ok(DevBuf { slice, guard: 0 })
    }

    /// Wraps memory allocated elsewhere (library workspaces).
    pub(crate) fn from_slice(slice: CudaSlice<T>) -> Result<Self> {
        Ok(DevBuf { slice, guard: 0 })
    }

    /// Elements of the buffer itself (guards not counted).
    pub fn len(&self) -> usize {
        self.slice.len() - 2 * self.guard
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// The device address for a C launcher (past the front guard, if any). The buffer
    /// outlives every launch that uses it because launches are synchronised before buffers
    /// drop (the engine syncs each run).
    pub fn ptr(&self, gpu: &Gpu) -> *mut c_void {
        let (p, _no_event) = self.slice.device_ptr(gpu.stream());
        (p as usize + self.guard * std::mem::size_of::<T>()) as *mut c_void
    }

    /// The buffer's own elements (guards not included).
    pub fn download(&self, gpu: &Gpu) -> Result<Vec<T>> {
        let own = self.slice.slice(self.guard..self.guard + self.len());
        Ok(gpu.stream().clone_dtoh(&own)?)
    }

    pub fn slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    pub fn slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

/// 16-bit float types the GPU can fill with seeded uniform values.
pub trait RandomFill: DeviceRepr {
    /// # Safety
    /// `p` must point to at least `n` elements of this type on the device.
    unsafe fn fill(p: *mut c_void, n: usize, seed: u64, lo: f32, hi: f32, s: *mut c_void) -> i32;
}

impl RandomFill for f16 {
    unsafe fn fill(p: *mut c_void, n: usize, seed: u64, lo: f32, hi: f32, s: *mut c_void) -> i32 {
        ffi::rl_fill_uniform_f16(p, n, seed, lo, hi, s)
    }
}

impl RandomFill for half::bf16 {
    unsafe fn fill(p: *mut c_void, n: usize, seed: u64, lo: f32, hi: f32, s: *mut c_void) -> i32 {
        ffi::rl_fill_uniform_bf16(p, n, seed, lo, hi, s)
    }
}

impl<T: RandomFill> DevBuf<T> {
    /// Seeded uniform values in [lo, hi): never zeros, reproducible from the seed.
    pub fn random(gpu: &Gpu, len: usize, seed: u64, lo: f32, hi: f32, what: &str) -> Result<Self> {
        let b = Self::alloc(gpu, len, what)?;
        // SAFETY: b holds b.len() elements of T.
        let code = unsafe { T::fill(b.ptr(gpu), b.len(), seed, lo, hi, gpu.raw_stream()) };
        gpu.check_launch(code, "fill_uniform", what)?;
        Ok(b)
    }
}

impl<T: Elem> DevBuf<T> {
    /// Fills with the poison NaN of T (before a checked run), guards included.
    pub fn poison(&self, gpu: &Gpu) -> Result<()> {
        let (base, _no_event) = self.slice.device_ptr(gpu.stream());
        // SAFETY: writes exactly the allocation's u16 values (the buffer and its guards).
        let code = unsafe {
            ffi::rl_fill_bits_u16(
                base as *mut c_void,
                self.slice.len(),
                T::POISON,
                gpu.raw_stream(),
            )
        };
        gpu.check_launch(code, "fill_bits_u16", "poison")
    }

    /// Output buffer, poisoned.
    pub fn poisoned(gpu: &Gpu, len: usize, what: &str) -> Result<Self> {
        let b = Self::alloc(gpu, len, what)?;
        b.poison(gpu)?;
        Ok(b)
    }

    /// Output buffer with GUARD_ELEMS of poison before and after it: a kernel that writes
    /// outside its output changes a guard, and `guard_breach` names where.
    pub fn poisoned_guarded(gpu: &Gpu, len: usize, what: &str) -> Result<Self> {
        let mut b = Self::alloc(gpu, len.max(1) + 2 * GUARD_ELEMS, what)?;
        b.guard = GUARD_ELEMS;
        b.poison(gpu)?;
        Ok(b)
    }

    /// Where a run wrote outside the buffer: the first changed guard element, as an offset
    /// from the buffer's start (negative: before it). None when the guards are intact.
    pub fn guard_breach(&self, gpu: &Gpu) -> Result<Option<String>> {
        if self.guard == 0 {
            return Ok(None);
        }
        let (g, n) = (self.guard, self.len());
        let total = self.slice.len();
        // Only the guards come back (not the output between them: a GiB for some families).
        let head = gpu.stream().clone_dtoh(&self.slice.slice(0..g))?;
        let tail = gpu.stream().clone_dtoh(&self.slice.slice(g + n..total))?;
        let changed = |i: usize| {
            let v = if i < g { head[i] } else { tail[i - g - n] };
            v.to_bits() != T::POISON
        };
        // Before: the element nearest the buffer first (the likeliest off-by-one).
        let before = (0..g).rev().filter(|&i| changed(i)).collect::<Vec<_>>();
        let after = (g + n..total).filter(|&i| changed(i)).collect::<Vec<_>>();
        Ok(match (before.first(), after.first()) {
            (None, None) => None,
            (b, a) => Some(format!(
                "wrote outside its output: {}{}",
                a.map_or(String::new(), |&i| format!(
                    "{} element(s) past the end, the first at index {} (length {n})",
                    after.len(),
                    i - g
                )),
                b.map_or(String::new(), |&i| format!(
                    "{}{} element(s) before the start, the nearest at index -{}",
                    if a.is_some() { "; " } else { "" },
                    before.len(),
                    g - i
                )),
            )),
        })
    }
}

impl DevBuf<f32> {
    pub fn zeros(gpu: &Gpu, len: usize, what: &str) -> Result<Self> {
        let mut b = Self::alloc(gpu, len, what)?;
        gpu.stream().memset_zeros(&mut b.slice)?;
        Ok(b)
    }
}

impl DevBuf<u8> {
    pub fn zeros_bytes(gpu: &Gpu, len: usize, what: &str) -> Result<Self> {
        let mut b = Self::alloc(gpu, len, what)?;
        gpu.stream().memset_zeros(&mut b.slice)?;
        Ok(b)
    }
}
