//! A user's kernel compiled, checked against its family's signature and loaded into the
//! tool's context, ready to launch on the tool's stream like one of ours.

use super::compile::{compile, Compiled};
use super::geometry;
use super::signature;
use super::source::UserSource;
use crate::error::{usage, LabError};
use crate::gpu::Gpu;
use crate::registry::Family;
use crate::results::schema::Shape;
use anyhow::Result;
use cudarc::driver::sys::CUfunction_attribute_enum;
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use std::ffi::c_void;
use std::sync::Arc;

/// One argument of a launch, in the family's parameter order.
#[derive(Debug, Clone, Copy)]
pub enum Arg {
    Ptr(*mut c_void),
    I32(i32),
    U64(u64),
    F32(f32),
}

pub struct UserKernel {
    pub source: UserSource,
    pub family: &'static Family,
    pub compiled: Compiled,
    func: CudaFunction,
}

/// The NVRTC architecture for a compute capability: sm_90a on Hopper (wgmma, setmaxnreg).
pub fn arch_for(cc: (i32, i32)) -> String {
    let a = if cc == (9, 0) { "a" } else { "" };
    format!("sm_{}{}{a}", cc.0, cc.1)
}

/// Checks the file against the family before any GPU work: the family it names, and that
/// the family takes user kernels.
pub fn check_family(source: &UserSource, family: &'static Family) -> Result<()> {
    if let Some(f) = &source.family {
        if f != family.name && !family.aliases.contains(&f.as_str()) {
            return Err(usage(format!(
                "{} is written for family '{f}' (its launch block says so), not {}",
                source.path.display(),
                family.name
            )));
        }
    }
    if family.user_params.is_empty() {
        return Err(usage(format!(
            "{} does not take user kernels yet",
            family.name
        )));
    }
    Ok(())
}

/// Compiles for `arch` and checks the signature: all of `--compile-only`, no GPU needed.
pub fn compile_checked(
    source: &UserSource,
    family: &'static Family,
    arch: &str,
) -> Result<Compiled> {
    check_family(source, family)?;
    let c = compile(&source.path, &source.text, arch)?;
    signature::check(&c.ptx, &source.symbol, family.name, family.user_params)?;
    Ok(c)
}

impl UserKernel {
    /// Compiles for the GPU's architecture, checks the signature, loads the module.
    pub fn load(gpu: &Gpu, source: UserSource, family: &'static Family) -> Result<Arc<UserKernel>> {
        let compiled = compile_checked(&source, family, &arch_for(gpu.props().compute_capability))?;
        let module = gpu
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.clone()))
            .map_err(|e| anyhow::anyhow!("loading {}: {e:?}", source.label()))?;
        let func = module
            .load_function(&source.symbol)
            .map_err(|e| anyhow::anyhow!("finding {} in its module: {e:?}", source.symbol))?;
        Ok(Arc::new(UserKernel {
            source,
            family,
            compiled,
            func,
        }))
    }

    /// "mine.cu:my_gemv": the records' variant.
    pub fn label(&self) -> String {
        self.source.label()
    }

    /// The launch geometry at a shape (a usage error when the block's expressions fail there).
    pub fn geometry(&self, shape: &Shape) -> Result<geometry::Launch> {
        let s = &self.source;
        geometry::evaluate(&s.grid, &s.block, &s.smem, shape)
    }

    /// Enqueues one launch on the tool's stream (no sync: graphs capture it like ours).
    pub fn launch(&self, gpu: &Gpu, shape: &Shape, args: &[Arg]) -> Result<()> {
        let g = self.geometry(shape)?;
        let fault = |detail: String| -> anyhow::Error {
            LabError::KernelFault {
                kernel: format!("user {}", self.label()),
                shape: shape.label(),
                detail,
            }
            .into()
        };
        if g.smem > 48 * 1024 {
            self.func
                .set_attribute(
                    CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    g.smem as i32,
                )
                .map_err(|e| fault(format!("{} bytes of dynamic shared memory: {e:?}", g.smem)))?;
        }
        let vals: Vec<ArgVal> = args.iter().map(|a| ArgVal::from(*a)).collect();
        let stream = gpu.stream();
        let mut b = stream.launch_builder(&self.func);
        for v in &vals {
            match v {
                ArgVal::U64(x) => b.arg(x),
                ArgVal::I32(x) => b.arg(x),
                ArgVal::F32(x) => b.arg(x),
            };
        }
        let cfg = LaunchConfig {
            grid_dim: g.grid,
            block_dim: g.block,
            shared_mem_bytes: g.smem,
        };
        // SAFETY: the argument list matches the family's signature, which the compiled
        // kernel's PTX entry was checked against; the pointers come from the case's DevBufs,
        // sized for this shape, and outlive the launch (the engine syncs each run).
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(|e| fault(crate::gpu::describe(&e)))
    }
}

/// Argument values with a fixed address for the launch builder.
enum ArgVal {
    U64(u64),
    I32(i32),
    F32(f32),
}

impl From<Arg> for ArgVal {
    fn from(a: Arg) -> Self {
        match a {
            Arg::Ptr(p) => ArgVal::U64(p as u64),
            Arg::U64(x) => ArgVal::U64(x),
            Arg::I32(x) => ArgVal::I32(x),
            Arg::F32(x) => ArgVal::F32(x),
        }
    }
}
