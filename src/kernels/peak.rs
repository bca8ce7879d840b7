//! Register-only peak loops (FP32 FFMA, fp16 HFMA2, WMMA) as BenchCases. The launcher
//! reports the FLOPs it performs, so the count lives next to the loop it describes.

use crate::ffi;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::{BenchCase, CaseId, Verification};
use crate::results::schema::Shape;
use crate::roofline::{ComputeUnit, Work};
use anyhow::Result;
use std::cell::Cell;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakKind {
    Ffma,
    Hfma2,
    Wmma,
}

impl PeakKind {
    pub fn name(&self) -> &'static str {
        match self {
            PeakKind::Ffma => "peak_ffma",
            PeakKind::Hfma2 => "peak_hfma2",
            PeakKind::Wmma => "peak_wmma",
        }
    }
}

pub struct PeakCase {
    pub kind: PeakKind,
    pub iters: i32,
    flops: Cell<f64>,
    sink: Option<DevBuf<f32>>,
}

impl PeakCase {
    pub fn new(kind: PeakKind, iters: i32) -> Self {
        PeakCase {
            kind,
            iters,
            flops: 0.0.into(),
            sink: None,
        }
    }
}

impl BenchCase for PeakCase {
    fn id(&self) -> CaseId {
        CaseId::new(
            self.kind.name(),
            "ours",
            "v1",
            Shape::Elems {
                elems: self.iters as u64,
            },
        )
    }
    fn work(&self) -> Work {
        let unit = if self.kind == PeakKind::Wmma {
            ComputeUnit::Tensor
        } else {
            ComputeUnit::Fp32
        };
        Work {
            flops: self.flops.get(),
            bytes: 0.0,
            unit,
        }
    }
    fn set_bytes(&self) -> u64 {
        0
    }
    fn prepare(&mut self, gpu: &Gpu, _sets: usize) -> Result<()> {
        // SAFETY: returns a constant.
        let n = unsafe { ffi::rl_peak_sink_floats() };
        self.sink = Some(DevBuf::zeros(gpu, n, "peak sink")?);
        Ok(())
    }
    fn launch(&self, gpu: &Gpu, _set: usize) -> Result<()> {
        let sink = self.sink.as_ref().expect("prepared").ptr(gpu) as *mut f32;
        let mut flops = 0.0f64;
        let s = gpu.raw_stream();
        // SAFETY: sink holds rl_peak_sink_floats floats; flops is a local.
        let code = unsafe {
            match self.kind {
                PeakKind::Ffma => ffi::rl_peak_ffma(sink, self.iters, &mut flops, s),
                PeakKind::Hfma2 => ffi::rl_peak_hfma2(sink, self.iters, &mut flops, s),
                PeakKind::Wmma => ffi::rl_peak_wmma(sink, self.iters, &mut flops, s),
            }
        };
        self.flops.set(flops);
        gpu.check_launch(code, self.kind.name(), &format!("{} iters", self.iters))
    }
    fn verify(&mut self, _gpu: &Gpu) -> Result<Verification> {
        Ok(Verification {
            passed: true,
            rel_err: 0.0,
            detail: "arithmetic probe: nothing to check".into(),
        })
    }
}
