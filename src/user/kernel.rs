//! A user's kernel, ready to launch on the tool's stream like one of ours: a kernel file
//! compiled, checked against its family's signature and loaded into the tool's context, or a
//! plugin's launcher. The family cases launch either one the same way.

use super::compile::{compile, Compiled};
use super::geometry;
use super::plugin::Plugin;
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

/// A user's kernel as given on the command line, validated before the GPU opens.
pub enum UserSpec {
    /// `--kernel-file`: the parsed source.
    File(UserSource),
    /// `--plugin`: the library, loaded, with its launcher found.
    Plugin(Plugin),
}

/// How a user's kernel launches.
enum Launcher {
    /// Compiled from the user's file with NVRTC; launched with the file's geometry.
    Nvrtc {
        source: Box<UserSource>,
        compiled: Compiled,
        func: CudaFunction,
    },
    /// The user's launcher in a shared library: it enqueues on the stream it is given.
    Plugin(Plugin),
}

pub struct UserKernel {
    pub family: &'static Family,
    launcher: Launcher,
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
    takes_user_kernels(family)
}

/// A usage error for a family that has no user-kernel case yet.
pub fn takes_user_kernels(family: &Family) -> Result<()> {
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
    /// A kernel file: compiled for the GPU's architecture, its signature checked, its module
    /// loaded. A plugin: ready as it is.
    pub fn load(gpu: &Gpu, spec: UserSpec, family: &'static Family) -> Result<Arc<UserKernel>> {
        let launcher = match spec {
            UserSpec::Plugin(p) => Launcher::Plugin(p),
            UserSpec::File(source) => {
                let arch = arch_for(gpu.props().compute_capability);
                let compiled = compile_checked(&source, family, &arch)?;
                let module = gpu
                    .context()
                    .load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin.clone()))
                    .map_err(|e| anyhow::anyhow!("loading {}: {e:?}", source.label()))?;
                let func = module.load_function(&source.symbol).map_err(|e| {
                    anyhow::anyhow!("finding {} in its module: {e:?}", source.symbol)
                })?;
                Launcher::Nvrtc {
                    source: Box::new(source),
                    compiled,
                    func,
                }
            }
        };
        Ok(Arc::new(UserKernel { family, launcher }))
    }

    /// "mine.cu:my_gemv" or "libmine.so:rl_gemv": the records' variant, before the hash.
    pub fn label(&self) -> String {
        match &self.launcher {
            Launcher::Nvrtc { source, .. } => source.label(),
            Launcher::Plugin(p) => p.label(),
        }
    }

    /// Hex SHA-256 of the kernel file or of the plugin library.
    pub fn sha(&self) -> &str {
        match &self.launcher {
            Launcher::Nvrtc { source, .. } => &source.sha,
            Launcher::Plugin(p) => &p.sha,
        }
    }

    /// What NVRTC produced (None for a plugin).
    pub fn compiled(&self) -> Option<&Compiled> {
        match &self.launcher {
            Launcher::Nvrtc { compiled, .. } => Some(compiled),
            Launcher::Plugin(_) => None,
        }
    }

    /// Enqueues one launch on the tool's stream (no sync: graphs capture it like ours).
    /// `args` are the family's kernel parameters in order; a plugin's launcher gets them
    /// between variant 0 and the stream (docs/adding-a-kernel.md).
    pub fn launch(&self, gpu: &Gpu, shape: &Shape, args: &[Arg]) -> Result<()> {
        match &self.launcher {
            Launcher::Plugin(p) => match p.call(args, gpu.raw_stream())? {
                0 => Ok(()),
                code => gpu.check_launch(code, &format!("user {}", p.label()), &shape.label()),
            },
            Launcher::Nvrtc { source, func, .. } => launch_nvrtc(gpu, source, func, shape, args),
        }
    }
}

/// Launches a compiled kernel with its file's geometry at `shape`.
fn launch_nvrtc(
    gpu: &Gpu,
    source: &UserSource,
    func: &CudaFunction,
    shape: &Shape,
    args: &[Arg],
) -> Result<()> {
    // The launch geometry at this shape (a usage error when the expressions fail there).
    let g = geometry::evaluate(
        &source.grid,
        &source.block,
        &source.smem,
        source.cluster.as_deref(),
        shape,
    )?;
    let fault = |detail: String| -> anyhow::Error {
        LabError::KernelFault {
            kernel: format!("user {}", source.label()),
            shape: shape.label(),
            detail,
        }
        .into()
    };
    if g.smem > 48 * 1024 {
        func.set_attribute(
            CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            g.smem as i32,
        )
        .map_err(|e| fault(format!("{} bytes of dynamic shared memory: {e:?}", g.smem)))?;
    }
    let mut vals: Vec<ArgVal> = args.iter().map(|a| ArgVal::from(*a)).collect();
    if let Some(cluster) = g.cluster {
        return launch_in_clusters(gpu, func, &g, cluster, &mut vals)
            .map_err(|e| fault(crate::gpu::describe(&e)));
    }
    let stream = gpu.stream();
    let mut b = stream.launch_builder(func);
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

/// A launch in thread-block clusters. cudarc's launch builder has no cluster attribute, so
/// this is the driver's cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
fn launch_in_clusters(
    gpu: &Gpu,
    func: &CudaFunction,
    g: &geometry::Launch,
    cluster: (u32, u32, u32),
    vals: &mut [ArgVal],
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    // SAFETY: a plain C struct of integers and a union; all-zero is a valid value.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: cluster.0,
        y: cluster.1,
        z: cluster.2,
    };
    let cfg = sys::CUlaunchConfig {
        gridDimX: g.grid.0,
        gridDimY: g.grid.1,
        gridDimZ: g.grid.2,
        blockDimX: g.block.0,
        blockDimY: g.block.1,
        blockDimZ: g.block.2,
        sharedMemBytes: g.smem,
        hStream: gpu.stream().cu_stream(),
        attrs: &mut attr,
        numAttrs: 1,
    };
    let mut params: Vec<*mut std::ffi::c_void> = vals.iter_mut().map(ArgVal::as_param).collect();
    gpu.context().bind_to_thread()?;
    // SAFETY: as for the builder's launch in launch_nvrtc: the values match the checked
    // signature, one pointer per parameter, and `vals` outlives the call (the driver copies
    // the parameters at launch); cfg and attr live across the call.
    unsafe {
        sys::cuLaunchKernelEx(
            &cfg,
            func.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
}

/// Argument values with a fixed address for the launch builder.
enum ArgVal {
    U64(u64),
    I32(i32),
    F32(f32),
}

impl ArgVal {
    /// The address of the value, as cuLaunchKernelEx's parameter array holds it.
    fn as_param(&mut self) -> *mut std::ffi::c_void {
        match self {
            ArgVal::U64(x) => (x as *mut u64).cast(),
            ArgVal::I32(x) => (x as *mut i32).cast(),
            ArgVal::F32(x) => (x as *mut f32).cast(),
        }
    }
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
