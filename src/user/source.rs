//! A user's kernel file: its text, its hash, the launch block at its top and the kernel it
//! names. Parsed before the GPU is touched, so a bad file is a usage error (exit 2).
//!
//! The launch block is `//` comment lines of the form `// roofline: key = value`:
//!   family = gemv                 the family the file is written for (checked if given)
//!   kernel = my_gemv              the symbol (needed when the file has several kernels)
//!   grid   = (cdiv(N, 256), M, 1) an expression or a tuple of 1-3 of them
//!   block  = 256
//!   smem   = 0                    dynamic shared memory bytes (default 0)
//!   cluster = (2, 1, 1)           thread-block cluster dimensions (default none; sm_90)

use crate::error::usage;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct UserSource {
    pub path: PathBuf,
    pub text: String,
    /// Hex SHA-256 of the text.
    pub sha: String,
    pub family: Option<String>,
    /// The kernel's symbol: the block's `kernel`, the --symbol flag, or the file's only one.
    pub symbol: String,
    pub grid: String,
    pub block: String,
    pub smem: String,
    /// Thread-block cluster dimensions, when the kernel runs in clusters.
    pub cluster: Option<String>,
}

impl UserSource {
    /// Reads and parses `path`; `symbol` (from --symbol) overrides the block's `kernel`.
    pub fn load(path: &Path, symbol: Option<&str>) -> Result<UserSource> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            usage(format!(
                "--kernel-file {}: cannot read it ({e}); give the path of a .cu file",
                path.display()
            ))
        })?;
        Self::parse(path, text, symbol)
            .with_context(|| format!("in --kernel-file {}", path.display()))
    }

    pub fn parse(path: &Path, text: String, symbol: Option<&str>) -> Result<UserSource> {
        let mut keys: Vec<(String, String, usize)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("//") else {
                continue;
            };
            let Some(kv) = rest.trim_start().strip_prefix("roofline:") else {
                continue;
            };
            let Some((k, v)) = kv.split_once('=') else {
                return Err(usage(format!(
                    "line {}: write the launch block as `// roofline: key = value`",
                    i + 1
                )));
            };
            let k = k.trim().to_string();
            if !["family", "kernel", "grid", "block", "smem", "cluster"].contains(&k.as_str()) {
                return Err(usage(format!(
                    "line {}: unknown launch-block key '{k}' (family, kernel, grid, block, \
                     smem, cluster)",
                    i + 1
                )));
            }
            if keys.iter().any(|(x, _, _)| *x == k) {
                return Err(usage(format!("line {}: '{k}' is given twice", i + 1)));
            }
            keys.push((k, v.trim().to_string(), i + 1));
        }
        let get = |k: &str| {
            keys.iter()
                .find(|(x, _, _)| x == k)
                .map(|(_, v, _)| v.clone())
        };
        let kernels = kernel_names(&text);
        let symbol = match (
            symbol.map(str::to_string).or(get("kernel")),
            kernels.as_slice(),
        ) {
            (Some(s), _) if kernels.contains(&s) => s,
            (Some(s), _) => {
                return Err(usage(format!(
                    "no extern \"C\" __global__ kernel named '{s}' (found: {})",
                    list_or_none(&kernels)
                )))
            }
            (None, [one]) => one.clone(),
            (None, []) => {
                return Err(usage(
                    "no extern \"C\" __global__ kernel found: write the kernel as \
                     extern \"C\" __global__ void name(...)",
                ))
            }
            (None, many) => {
                return Err(usage(format!(
                    "several kernels ({}): name one with `// roofline: kernel = NAME` or --symbol",
                    many.join(", ")
                )))
            }
        };
        let need = |k: &str| {
            get(k).ok_or_else(|| {
                usage(format!(
                    "the launch block lacks '{k}': add a line `// roofline: {k} = ...` \
                     (e.g. grid = (cdiv(N, 256), M, 1), block = 256)"
                ))
            })
        };
        let mut sha = Sha256::new();
        sha.update(text.as_bytes());
        Ok(UserSource {
            path: path.to_path_buf(),
            sha: format!("{:x}", sha.finalize()),
            family: get("family"),
            symbol,
            grid: need("grid")?,
            block: need("block")?,
            smem: get("smem").unwrap_or_else(|| "0".into()),
            cluster: get("cluster"),
            text,
        })
    }

    /// "mine.cu:my_gemv", the records' variant.
    pub fn label(&self) -> String {
        let file = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        format!("{file}:{}", self.symbol)
    }
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Names of the `extern "C" __global__` functions in a source text (comments skipped).
pub fn kernel_names(text: &str) -> Vec<String> {
    let code: String = strip_comments(text);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("extern \"C\"") {
        rest = &rest[i + 10..];
        // The declaration up to its parameter list.
        let Some(paren) = rest.find('(') else { break };
        let head = &rest[..paren];
        if head.contains("__global__") && !head.contains(';') && !head.contains('{') {
            if let Some(name) = head.split_whitespace().last() {
                let name = name.trim_start_matches('*').to_string();
                if !name.is_empty() && !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |n| &rest[l + n..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = rest[b..].find("*/").map_or("", |e| &rest[b + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"// A naive GEMV.
// roofline: family = gemv
// roofline: grid = (cdiv(N, 256), M)
// roofline: block = 256
#include <cuda_fp16.h>
extern "C" __global__ void gemv_naive(const __half* x, const __half* W, __half* y,
                                      int M, int N, int K) {}
// extern "C" __global__ void commented_out(int a) {}
"#;

    #[test]
    fn parses_the_block_and_finds_the_one_kernel() {
        let s = UserSource::parse(Path::new("a/mine.cu"), SRC.into(), None).unwrap();
        assert_eq!(s.symbol, "gemv_naive");
        assert_eq!(s.family.as_deref(), Some("gemv"));
        assert_eq!(s.grid, "(cdiv(N, 256), M)");
        assert_eq!(s.block, "256");
        assert_eq!(s.smem, "0");
        assert_eq!(s.label(), "mine.cu:gemv_naive");
        assert_eq!(s.sha.len(), 64);
    }

    #[test]
    fn bad_blocks_and_symbols_are_usage_errors() {
        let p = Path::new("m.cu");
        let e = |t: &str, sym: Option<&str>| {
            let err = UserSource::parse(p, t.into(), sym).unwrap_err();
            assert_eq!(crate::error::exit_code_of(&err), 2);
            err.to_string()
        };
        assert!(e(&SRC.replace("// roofline: block = 256\n", ""), None).contains("'block'"));
        assert!(e(SRC, Some("other")).contains("gemv_naive"));
        assert!(e(&SRC.replace("grid =", "grid:"), None).contains("key = value"));
        assert!(e(&SRC.replace("block = 256", "blocks = 256"), None).contains("unknown"));
        let two = format!("{SRC}\nextern \"C\" __global__ void second(int a) {{}}\n");
        assert!(e(&two, None).contains("several kernels"));
        assert!(UserSource::parse(p, two, Some("second")).is_ok());
        assert!(e("// roofline: grid = 1\n// roofline: block = 1\n", None).contains("no extern"));
    }
}
