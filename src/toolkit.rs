//! Finding the CUDA toolkit. build.rs includes this file through `#[path]`, and the library
//! compiles it too, so the search order is unit-tested on machines without CUDA.

use std::path::{Path, PathBuf};

/// Where scripts/setup.sh installs the pinned CUDA 13.0 wheels, below a cache folder.
pub const SETUP_SUBDIR: &str = "roofline-lab/cuda-13.0/nvidia/cu13";

/// What the search looks at; a struct so tests can feed it without touching the process.
#[derive(Debug, Default, Clone)]
pub struct SearchInputs {
    pub nvcc_env: Option<PathBuf>,
    pub cuda_home: Option<PathBuf>,
    pub cuda_path: Option<PathBuf>,
    pub path_var: Option<String>,
    /// scripts/setup.sh's install folder when overridden (ROOFLINE_CUDA_CACHE).
    pub setup_cache: Option<PathBuf>,
    pub cache_home: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

impl SearchInputs {
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        SearchInputs {
            nvcc_env: var("NVCC").map(PathBuf::from),
            cuda_home: var("CUDA_HOME").map(PathBuf::from),
            cuda_path: var("CUDA_PATH").map(PathBuf::from),
            path_var: var("PATH").map(|p| p.to_string_lossy().into_owned()),
            setup_cache: var("ROOFLINE_CUDA_CACHE").map(PathBuf::from),
            cache_home: var("XDG_CACHE_HOME").map(PathBuf::from),
            home: var("HOME").map(PathBuf::from),
        }
    }
}

/// A toolkit that was found: its root (holding bin/, include/, lib or lib64/) and nvcc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolkit {
    pub root: PathBuf,
    pub nvcc: PathBuf,
    pub found_by: &'static str,
}

impl Toolkit {
    /// Folders that may hold libcudart_static.a: pip wheels use lib/, the runfile lib64/.
    pub fn lib_dirs(&self) -> Vec<PathBuf> {
        ["lib64", "lib", "lib/x64", "targets/x86_64-linux/lib"]
            .iter()
            .map(|d| self.root.join(d))
            .filter(|d| d.is_dir())
            .collect()
    }
}

/// Candidate roots in priority order: $NVCC, $CUDA_HOME, $CUDA_PATH, nvcc on PATH,
/// /usr/local/cuda, then the setup script's cache folder.
pub fn candidates(inp: &SearchInputs) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    if let Some(nvcc) = &inp.nvcc_env {
        if let Some(root) = nvcc.parent().and_then(Path::parent) {
            out.push((root.to_path_buf(), "$NVCC"));
        }
    }
    if let Some(p) = &inp.cuda_home {
        out.push((p.clone(), "$CUDA_HOME"));
    }
    if let Some(p) = &inp.cuda_path {
        out.push((p.clone(), "$CUDA_PATH"));
    }
    if let Some(path) = &inp.path_var {
        for dir in std::env::split_paths(path) {
            if let Some(root) = dir.parent() {
                if dir.join("nvcc").is_file() {
                    out.push((root.to_path_buf(), "nvcc on PATH"));
                }
            }
        }
    }
    out.push((PathBuf::from("/usr/local/cuda"), "/usr/local/cuda"));
    if let Some(c) = &inp.setup_cache {
        out.push((c.join("nvidia/cu13"), "$ROOFLINE_CUDA_CACHE"));
    }
    let cache = inp
        .cache_home
        .clone()
        .or_else(|| inp.home.as_ref().map(|h| h.join(".cache")));
    if let Some(c) = cache {
        out.push((c.join(SETUP_SUBDIR), "scripts/setup.sh cache"));
    }
    out
}

/// The first candidate with an nvcc, or None.
pub fn find(inp: &SearchInputs) -> Option<Toolkit> {
    candidates(inp).into_iter().find_map(|(root, found_by)| {
        let nvcc = match (&inp.nvcc_env, found_by) {
            (Some(n), "$NVCC") => n.clone(),
            _ => root.join("bin").join("nvcc"),
        };
        nvcc.is_file().then_some(Toolkit {
            root,
            nvcc,
            found_by,
        })
    })
}

/// The message build.rs fails with when no toolkit is found.
pub fn not_found_message(inp: &SearchInputs) -> String {
    let tried: Vec<String> = candidates(inp)
        .iter()
        .map(|(p, why)| format!("  {} ({why})", p.display()))
        .collect();
    format!(
        "roofline-lab: no CUDA toolkit (nvcc) found. Run `bash scripts/setup.sh` once: it installs \
         the pinned CUDA 13.0 compiler. Or set CUDA_HOME / NVCC. Looked in:\n{}",
        tried.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn fake_toolkit(dir: &Path) -> PathBuf {
        let bin = dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        fs::write(bin.join("nvcc"), "#!/bin/sh\n").unwrap();
        fs::create_dir_all(dir.join("lib")).unwrap();
        bin.join("nvcc")
    }

    #[test]
    fn nvcc_env_wins_over_cuda_home() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let nvcc = fake_toolkit(a.path());
        fake_toolkit(b.path());
        let inp = SearchInputs {
            nvcc_env: Some(nvcc.clone()),
            cuda_home: Some(b.path().to_path_buf()),
            ..Default::default()
        };
        let tk = find(&inp).unwrap();
        assert_eq!(tk.nvcc, nvcc);
        assert_eq!(tk.found_by, "$NVCC");
    }

    #[test]
    fn cuda_home_used_when_it_has_nvcc() {
        let b = tempfile::tempdir().unwrap();
        fake_toolkit(b.path());
        let inp = SearchInputs {
            cuda_home: Some(b.path().to_path_buf()),
            ..Default::default()
        };
        let tk = find(&inp).unwrap();
        assert_eq!(tk.root, b.path());
        assert_eq!(tk.lib_dirs(), vec![b.path().join("lib")]);
    }

    #[test]
    fn setup_cache_is_found_last() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join(".cache").join(SETUP_SUBDIR);
        fake_toolkit(&root);
        let inp = SearchInputs {
            cuda_home: Some(home.path().join("missing")),
            home: Some(home.path().to_path_buf()),
            ..Default::default()
        };
        let all = candidates(&inp);
        assert_eq!(all.last().unwrap().0, root);
        // /usr/local/cuda may exist on a developer machine; only assert when it does not.
        if !Path::new("/usr/local/cuda/bin/nvcc").exists() {
            assert_eq!(find(&inp).unwrap().root, root);
        }
    }

    #[test]
    fn path_entries_with_nvcc_are_candidates() {
        let d = tempfile::tempdir().unwrap();
        fake_toolkit(d.path());
        let inp = SearchInputs {
            path_var: Some(format!("/nonexistent:{}", d.path().join("bin").display())),
            ..Default::default()
        };
        assert!(candidates(&inp)
            .iter()
            .any(|(p, why)| p == d.path() && *why == "nvcc on PATH"));
    }

    #[test]
    fn overridden_setup_cache_is_searched() {
        let c = tempfile::tempdir().unwrap();
        fake_toolkit(&c.path().join("nvidia/cu13"));
        let inp = SearchInputs {
            setup_cache: Some(c.path().to_path_buf()),
            ..Default::default()
        };
        assert!(candidates(&inp)
            .iter()
            .any(|(p, why)| *p == c.path().join("nvidia/cu13") && *why == "$ROOFLINE_CUDA_CACHE"));
    }

    #[test]
    fn message_names_the_setup_script() {
        let inp = SearchInputs {
            cuda_home: Some(PathBuf::from("/nope")),
            ..Default::default()
        };
        let msg = not_found_message(&inp);
        assert!(msg.contains("scripts/setup.sh"));
        assert!(msg.contains("/nope"));
    }
}
