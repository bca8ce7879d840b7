//! Run-time compilation of a user's kernel with NVRTC (loaded at run time, as the driver is),
//! to CUBIN for the exact GPU architecture (sm_90a on Hopper, so wgmma and TMA code compiles;
//! CUBIN also avoids PTX newer than the driver). Results are cached by a hash of the source,
//! the options, the architecture and the NVRTC version.

use crate::error::{usage, LabError};
use crate::toolkit;
use anyhow::{Context, Result};
use cudarc::nvrtc::{result as nvrtc, sys};
use sha2::{Digest, Sha256};
use std::ffi::{c_char, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A compiled kernel file: CUBIN for `arch`, and the PTX the signature is read from.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub ptx: String,
    pub arch: String,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// Where NVRTC and the CUDA headers are: the toolkit build.rs uses (scripts/setup.sh installs
/// it with NVRTC on build machines), else /usr/local/cuda.
fn toolkit_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(tk) = toolkit::find(&toolkit::SearchInputs::from_env()) {
        roots.push(tk.root);
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    roots
}

/// Loads libnvrtc once. cudarc opens it by its plain name (libnvrtc.so.13), which finds a
/// library already loaded under that name; so a toolkit's copy is loaded first by path, and
/// the system's search path (LD_LIBRARY_PATH) is the fallback.
fn ensure_nvrtc() -> Result<()> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            for root in toolkit_roots() {
                for dir in [root.join("lib"), root.join("lib64")] {
                    let Ok(entries) = std::fs::read_dir(&dir) else {
                        continue;
                    };
                    let mut libs: Vec<PathBuf> = entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| {
                            p.file_name().is_some_and(|n| {
                                let n = n.to_string_lossy();
                                // (the .alt builds are a second copy with other defaults)
                                n.starts_with("libnvrtc")
                                    && n.contains(".so")
                                    && !n.contains(".alt.")
                            })
                        })
                        .collect();
                    // The builtins first: libnvrtc opens them by name when it compiles.
                    libs.sort_by_key(|p| !p.to_string_lossy().contains("builtins"));
                    for lib in libs {
                        // SAFETY: loading NVIDIA's NVRTC libraries runs no initialisers with
                        // preconditions; the handles stay loaded for the process's life.
                        if let Ok(l) = unsafe { libloading::Library::new(&lib) } {
                            std::mem::forget(l);
                        }
                    }
                }
            }
            // SAFETY: only probes whether the library can be opened.
            if unsafe { sys::is_culib_present() } {
                Ok(())
            } else {
                Err(
                    "NVRTC (libnvrtc.so.13) was not found: on a build machine run \
                     `bash scripts/setup.sh`; on a GPU machine put the CUDA toolkit's lib64 on \
                     LD_LIBRARY_PATH (. scripts/device/env.sh)"
                        .into(),
                )
            }
        })
        .clone()
        .map_err(|m| LabError::Usage(m).into())
}

/// The CUDA include folders (cuda_fp16.h, mma.h, cuda/pipeline, <nv/target> from CCCL).
fn include_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in toolkit_roots() {
        for d in [root.join("include"), root.join("include/cccl")] {
            if d.join("cuda_fp16.h").is_file() || d.join("nv/target").is_file() {
                out.push(d);
            }
        }
    }
    out
}

fn nvrtc_version() -> Result<(i32, i32)> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-parameters.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| anyhow::anyhow!("nvrtcVersion: {e:?}"))?;
    Ok((major, minor))
}

fn cache_dir() -> PathBuf {
    if let Ok(d) = std::env::var("ROOFLINE_CACHE_DIR") {
        return PathBuf::from(d).join("kernels");
    }
    let base = std::env::var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|_| std::env::temp_dir());
    base.join("roofline-lab").join("kernels")
}

/// Compiles `text` (named `path` in messages) for `arch` ("sm_90a"). A compile error is a
/// usage error (exit 2) carrying NVRTC's log, which names the file and line.
pub fn compile(path: &Path, text: &str, arch: &str) -> Result<Compiled> {
    ensure_nvrtc()?;
    let (major, minor) = nvrtc_version()?;
    let includes = include_dirs();
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        "-std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    options.extend(includes.iter().map(|d| format!("-I{}", d.display())));
    let key = {
        let mut h = Sha256::new();
        h.update(text.as_bytes());
        h.update(options.join("\n").as_bytes());
        h.update(format!("nvrtc {major}.{minor}").as_bytes());
        format!("{:x}", h.finalize())
    };
    let dir = cache_dir();
    let (cubin_path, ptx_path) = (
        dir.join(format!("{key}.cubin")),
        dir.join(format!("{key}.ptx")),
    );
    if let (Ok(cubin), Ok(ptx)) = (
        std::fs::read(&cubin_path),
        std::fs::read_to_string(&ptx_path),
    ) {
        return Ok(Compiled {
            cubin,
            ptx,
            arch: arch.into(),
            cached: true,
        });
    }
    let name = path
        .file_name()
        .map_or_else(|| "kernel.cu".into(), |f| f.to_string_lossy().into_owned());
    let (cubin, ptx) = run_nvrtc(text, &name, &options)?;
    // The cache is an optimisation: a read-only or full disk only costs a recompile later.
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = crate::results::atomic::write_atomic(&cubin_path, &cubin);
        let _ = crate::results::atomic::write_atomic(&ptx_path, ptx.as_bytes());
    }
    Ok(Compiled {
        cubin,
        ptx,
        arch: arch.into(),
        cached: false,
    })
}

fn run_nvrtc(text: &str, name: &str, options: &[String]) -> Result<(Vec<u8>, String)> {
    let src = CString::new(text).map_err(|_| usage("the kernel file contains a NUL byte"))?;
    let cname = CString::new(name).expect("file names hold no NUL");
    let prog = nvrtc::create_program(&src, Some(&cname))
        .map_err(|e| anyhow::anyhow!("nvrtcCreateProgram: {e:?}"))?;
    // SAFETY: prog is a live program until destroy_program below; every buffer is sized by
    // NVRTC's own size query.
    let out = unsafe {
        let compiled = nvrtc::compile_program(prog, options);
        let log = nvrtc::get_program_log(prog)
            .map(|l| CStr::from_ptr(l.as_ptr()).to_string_lossy().into_owned())
            .unwrap_or_default();
        match compiled {
            Err(_) => Err(anyhow::Error::from(LabError::Usage(format!(
                "{name} does not compile (NVRTC {}):\n{}",
                options.join(" "),
                log.trim_end()
            )))),
            Ok(()) => {
                let mut n = 0usize;
                sys::nvrtcGetCUBINSize(prog, &mut n)
                    .result()
                    .map_err(|e| anyhow::anyhow!("nvrtcGetCUBINSize: {e:?}"))?;
                let mut cubin = vec![0u8; n];
                sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr() as *mut c_char)
                    .result()
                    .map_err(|e| anyhow::anyhow!("nvrtcGetCUBIN: {e:?}"))?;
                let ptx = nvrtc::get_ptx(prog)
                    .map(|p| CStr::from_ptr(p.as_ptr()).to_string_lossy().into_owned())
                    .map_err(|e| anyhow::anyhow!("nvrtcGetPTX: {e:?}"))?;
                Ok((cubin, ptx))
            }
        }
    };
    // SAFETY: prog came from create_program and is destroyed once.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    out.context("compiling the kernel file")
}
