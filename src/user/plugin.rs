//! A host-launcher plugin (`--plugin LIB.so[:symbol]`): a user's shared library, built with
//! nvcc, exporting a launcher with the C signature of the family's own launcher in the
//! public header (cuda/<family>/<family>.h), for kernels that need host
//! code (TMA descriptors, several kernels, clusters). It is loaded before the GPU opens and
//! called like ours, on the tool's stream.
//!
//! The ABI: `int <launcher>(int variant, <the family's kernel parameters>, void *stream)`
//! (gemv's launcher also takes `void *workspace` after `y`). The tool passes variant 0,
//! workspace NULL and its own CUstream (a cudaStream_t); 0 is success, anything else a
//! cudaError_t that the tool names.
//!
//! All of the crate's `unsafe` for plugins is in this module: opening the library, reading
//! the symbol's address, and calling it as the family's launcher type.

use super::signature::ParamKind;
use super::Arg;
use crate::error::usage;
use crate::registry::Family;
use anyhow::{anyhow, Result};
use sha2::{Digest, Sha256};
use std::ffi::{c_int, c_void};
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

/// A C parameter type a launcher takes, and the kind of [`Arg`] that fills it.
pub trait CArg: Sized {
    const KIND: ParamKind;
    fn from_arg(a: Arg) -> Option<Self>;
}

impl CArg for c_int {
    const KIND: ParamKind = ParamKind::I32;
    fn from_arg(a: Arg) -> Option<Self> {
        match a {
            Arg::I32(x) => Some(x),
            _ => None,
        }
    }
}

/// size_t
impl CArg for usize {
    const KIND: ParamKind = ParamKind::U64;
    fn from_arg(a: Arg) -> Option<Self> {
        match a {
            Arg::U64(x) => usize::try_from(x).ok(),
            _ => None,
        }
    }
}

impl CArg for f32 {
    const KIND: ParamKind = ParamKind::F32;
    fn from_arg(a: Arg) -> Option<Self> {
        match a {
            Arg::F32(x) => Some(x),
            _ => None,
        }
    }
}

impl CArg for *const c_void {
    const KIND: ParamKind = ParamKind::Ptr;
    fn from_arg(a: Arg) -> Option<Self> {
        match a {
            Arg::Ptr(p) => Some(p as *const c_void),
            _ => None,
        }
    }
}

impl CArg for *mut c_void {
    const KIND: ParamKind = ParamKind::Ptr;
    fn from_arg(a: Arg) -> Option<Self> {
        match a {
            Arg::Ptr(p) => Some(p),
            _ => None,
        }
    }
}

/// A launcher's Rust fn-pointer type, `unsafe extern "C" fn(...) -> c_int` (implemented
/// below for every parameter count a family's launcher has).
pub trait LauncherFn: Copy {
    /// The parameters' kinds, in order.
    fn kinds() -> Vec<ParamKind>;
    /// Calls the function at `f` with `args`.
    ///
    /// # Safety
    /// `f` is the address of a function of this type, and `args` are valid for it (device
    /// pointers sized for the launch, the tool's stream).
    unsafe fn call(f: *const c_void, args: &[Arg]) -> Result<c_int>;
}

macro_rules! launcher_fn {
    ($($a:ident: $t:ident),+) => {
        impl<$($t: CArg),+> LauncherFn for unsafe extern "C" fn($($t),+) -> c_int {
            fn kinds() -> Vec<ParamKind> {
                vec![$($t::KIND),+]
            }
            unsafe fn call(f: *const c_void, args: &[Arg]) -> Result<c_int> {
                let mut it = args.iter().copied();
                $(let $a = it.next().and_then($t::from_arg);)+
                let ($(Some($a),)+ None) = ($($a,)+ it.next()) else {
                    return Err(anyhow!(
                        "internal: a launcher taking {:?} was given {args:?}",
                        Self::kinds()
                    ));
                };
                // SAFETY: the caller guarantees `f` is a function of this type (a fn
                // pointer and a data pointer have the same size on every target CUDA runs on).
                let f = unsafe { std::mem::transmute::<*const c_void, Self>(f) };
                // SAFETY: the caller guarantees the arguments are valid for it.
                Ok(unsafe { f($($a),+) })
            }
        }
    };
}

launcher_fn!(a: A, b: B, c: C, d: D, e: E);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G, h: H);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G, h: H, i: I);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G, h: H, i: I, j: J);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G, h: H, i: I, j: J, k: K);
launcher_fn!(a: A, b: B, c: C, d: D, e: E, f2: F, g: G, h: H, i: I, j: J, k: K, l: L);

/// A family's launcher ABI, declared in its registry entry: the plugin's default symbol, the
/// C prototype `roofline list` prints, and how to call a launcher of its type.
pub struct LauncherAbi {
    /// The family's own launcher: a plugin's default symbol.
    pub symbol: &'static str,
    /// Its C prototype, as the public header declares it.
    pub prototype: &'static str,
    /// The launcher takes `void *workspace` before this kernel parameter (the tool passes
    /// NULL): gemv's.
    pub workspace_at: Option<usize>,
    kinds: fn() -> Vec<ParamKind>,
    call: unsafe fn(*const c_void, &[Arg]) -> Result<c_int>,
}

impl LauncherAbi {
    /// The ABI of launchers of type `F`. `ours` is the family's own launcher as bindgen
    /// declared it from the header (src/ffi.rs): passing it makes the compiler check that
    /// `F` is exactly the header's signature.
    pub const fn of<F: LauncherFn>(
        _ours: F,
        symbol: &'static str,
        prototype: &'static str,
        workspace_at: Option<usize>,
    ) -> LauncherAbi {
        LauncherAbi {
            symbol,
            prototype,
            workspace_at,
            kinds: F::kinds,
            call: F::call,
        }
    }

    /// The launcher's parameter kinds, in order.
    pub fn kinds(&self) -> Vec<ParamKind> {
        (self.kinds)()
    }

    /// One launch's arguments: variant 0, the kernel's arguments (a NULL workspace where the
    /// family's launcher takes one), the stream.
    pub fn arguments(&self, kernel_args: &[Arg], stream: *mut c_void) -> Vec<Arg> {
        let mut out = vec![Arg::I32(0)];
        for (i, a) in kernel_args.iter().enumerate() {
            if self.workspace_at == Some(i) {
                out.push(Arg::Ptr(std::ptr::null_mut()));
            }
            out.push(*a);
        }
        out.push(Arg::Ptr(stream));
        out
    }

    /// The prototype with the user's symbol in place of ours.
    pub fn prototype_as(&self, symbol: &str) -> String {
        self.prototype.replacen(self.symbol, symbol, 1)
    }
}

/// A loaded plugin: the library, its launcher for one family, and the file's hash.
pub struct Plugin {
    pub path: PathBuf,
    pub symbol: String,
    /// Hex SHA-256 of the library file.
    pub sha: String,
    pub family: &'static Family,
    /// The launcher's address (an integer, so a plugin can be shared like our kernels).
    launcher: usize,
    /// Never unloaded: dlclose would run the library's CUDA runtime teardown (unregistering
    /// its kernels) while the tool's context may be mid-teardown or lost to a fault.
    _lib: ManuallyDrop<libloading::Library>,
}

/// Splits "LIB.so:symbol" (the symbol after the last ':', when it is a C identifier).
pub fn parse_spec(spec: &str) -> Result<(PathBuf, Option<String>)> {
    if let Some((file, sym)) = spec.rsplit_once(':') {
        if sym.is_empty() {
            return Err(usage(format!(
                "--plugin {spec}: give a symbol after ':' or leave the ':' out"
            )));
        }
        let ident = sym
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && sym.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ident && !file.is_empty() {
            return Ok((PathBuf::from(file), Some(sym.to_string())));
        }
    }
    Ok((PathBuf::from(spec), None))
}

impl Plugin {
    /// Loads `spec` ("LIB.so[:symbol]") as a `family` plugin: the file read and hashed, the
    /// library opened (every symbol it needs resolved now) and the launcher found. Every
    /// failure is a usage error (exit 2); no GPU work is done.
    pub fn load(spec: &str, family: &'static Family) -> Result<Plugin> {
        super::kernel::takes_user_kernels(family)?;
        let abi = &family.plugin;
        let (path, symbol) = parse_spec(spec)?;
        let symbol = symbol.unwrap_or_else(|| abi.symbol.to_string());
        let bytes = std::fs::read(&path).map_err(|e| {
            usage(format!(
                "--plugin {}: cannot read it ({e}); give the path of a shared library \
                 (nvcc -shared -Xcompiler -fPIC -o libmine.so mine.cu)",
                path.display()
            ))
        })?;
        // dlopen searches the library path for a bare name: open the file the user named.
        let full = path.canonicalize().unwrap_or_else(|_| path.clone());
        // SAFETY: opening the library runs its initialisers; a plugin's (nvcc's CUDA runtime
        // registering its kernels) have no preconditions on the tool's side. The user asked
        // for this code to run, as they ask for their kernel to run.
        let lib = unsafe {
            libloading::os::unix::Library::open(
                Some(&full),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        }
        .map_err(|e| usage(format!("--plugin {}: cannot load it: {e}", path.display())))?;
        let lib = libloading::Library::from(lib);
        // SAFETY: reads the symbol's address only; what it points to is used as the family's
        // launcher type, which is the plugin's documented contract.
        let launcher = unsafe { lib.get::<*const c_void>(symbol.as_bytes()) }
            .map(|s| *s)
            .map_err(|_| missing_symbol(&path, &symbol, family))?;
        if launcher.is_null() {
            return Err(missing_symbol(&path, &symbol, family));
        }
        let launcher = launcher as usize;
        Ok(Plugin {
            path,
            symbol,
            sha: format!("{:x}", Sha256::digest(&bytes)),
            family,
            launcher,
            _lib: ManuallyDrop::new(lib),
        })
    }

    /// "libmine.so:rl_gemv", the records' variant (before the hash).
    pub fn label(&self) -> String {
        let file = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        format!("{file}:{}", self.symbol)
    }

    /// Calls the launcher with the kernel's arguments (in the family's parameter order) on
    /// `stream`; returns its code (0: enqueued).
    pub fn call(&self, kernel_args: &[Arg], stream: *mut c_void) -> Result<c_int> {
        let abi = &self.family.plugin;
        let args = abi.arguments(kernel_args, stream);
        // SAFETY: `launcher` was resolved as this family's launcher symbol, whose type the
        // plugin's author declares by the documented ABI; the family's case passes device
        // pointers it allocated for this shape (alive until the engine syncs) and the
        // tool's stream.
        unsafe { (abi.call)(self.launcher as *const c_void, &args) }
    }
}

fn missing_symbol(path: &Path, symbol: &str, family: &Family) -> anyhow::Error {
    usage(format!(
        "--plugin {}: the library exports no symbol '{symbol}': a {} plugin exports \
         `extern \"C\" {}` (declared extern \"C\", so its name is not mangled; another \
         name: --plugin FILE.so:SYMBOL)",
        path.display(),
        family.name,
        family.plugin.prototype_as(symbol)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_a_symbol() {
        let p = |s: &str| parse_spec(s).unwrap();
        assert_eq!(p("libx.so"), (PathBuf::from("libx.so"), None));
        assert_eq!(
            p("a/libx.so:my_gemv"),
            (PathBuf::from("a/libx.so"), Some("my_gemv".into()))
        );
        assert_eq!(p("c:/x.so").1, None);
        assert_eq!(p("dir:1/x.so").1, None);
        assert!(parse_spec("libx.so:").is_err());
    }

    /// Every family's launcher takes variant, its kernel's parameters (a workspace where
    /// declared) and the stream, and its prototype is the public header's.
    #[test]
    fn every_family_launcher_matches_its_kernel_and_its_header() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda");
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        // The public headers: kernels.h and each family folder's <family>.h.
        let mut text = std::fs::read_to_string(root.join("kernels.h")).unwrap();
        for dir in std::fs::read_dir(&root).unwrap().flatten() {
            let name = dir.file_name().to_string_lossy().into_owned();
            let h = dir.path().join(format!("{name}.h"));
            if h.is_file() {
                text += &std::fs::read_to_string(h).unwrap();
            }
        }
        let headers = squash(&text);
        for f in crate::registry::ALL {
            let abi = &f.plugin;
            let mut want = vec![ParamKind::I32];
            for (i, p) in f.user_params.iter().enumerate() {
                if abi.workspace_at == Some(i) {
                    want.push(ParamKind::Ptr);
                }
                want.push(p.kind);
            }
            want.push(ParamKind::Ptr);
            assert_eq!(abi.kinds(), want, "{}", f.name);
            assert!(
                abi.prototype
                    .starts_with(&format!("int {}(int variant,", abi.symbol))
                    && abi.prototype.ends_with("void *stream)"),
                "{}: {}",
                f.name,
                abi.prototype
            );
            assert!(
                headers.contains(&format!("{};", squash(abi.prototype))),
                "{}: {} is not in the public header",
                f.name,
                abi.prototype
            );
            let n = f.user_params.len();
            let args = abi.arguments(&vec![Arg::I32(7); n], std::ptr::null_mut());
            assert_eq!(args.len(), want.len(), "{}", f.name);
        }
    }

    #[test]
    fn arguments_of_the_wrong_kind_are_refused_before_the_call() {
        type L = unsafe extern "C" fn(c_int, *mut c_void, usize, f32, *mut c_void) -> c_int;
        let bad = [
            Arg::I32(0),
            Arg::I32(1),
            Arg::U64(2),
            Arg::F32(1.0),
            Arg::Ptr(std::ptr::null_mut()),
        ];
        // SAFETY: never called: the argument check fails first.
        let e = unsafe { <L as LauncherFn>::call(std::ptr::null(), &bad) }.unwrap_err();
        assert!(e.to_string().contains("internal"), "{e}");
        // SAFETY: as above (one argument too few).
        assert!(unsafe { <L as LauncherFn>::call(std::ptr::null(), &bad[..4]) }.is_err());
    }
}
