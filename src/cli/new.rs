//! `roofline new <family> NAME`: a correct, simple starting kernel for a family (the family's
//! example in examples/kernels/, renamed), and the command that verifies and times it.

use crate::error::usage;
use crate::registry;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct NewArgs {
    /// Kernel family (`roofline list` names them)
    pub family: String,
    /// The kernel's name (a C identifier); the file is NAME.cu
    pub name: String,
    /// Folder to write NAME.cu into
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

/// (family, example source, its kernel's name): the templates, compiled into the binary.
const TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "copy",
        include_str!("../../examples/kernels/copy.cu"),
        "copy_vec16",
    ),
    (
        "hgemm",
        include_str!("../../examples/kernels/hgemm_wmma.cu"),
        "hgemm_wmma",
    ),
    (
        "gemm_bias_gelu",
        include_str!("../../examples/kernels/gemm_bias_gelu.cu"),
        "gemm_bias_gelu_tiled",
    ),
    (
        "gemm_residual",
        include_str!("../../examples/kernels/gemm_residual.cu"),
        "gemm_residual_tiled",
    ),
    (
        "gemv",
        include_str!("../../examples/kernels/gemv_naive.cu"),
        "gemv_naive",
    ),
    (
        "relu",
        include_str!("../../examples/kernels/relu.cu"),
        "relu_simple",
    ),
    (
        "gelu",
        include_str!("../../examples/kernels/gelu.cu"),
        "gelu_simple",
    ),
    (
        "layernorm",
        include_str!("../../examples/kernels/layernorm.cu"),
        "layernorm_two_pass",
    ),
    (
        "add_rmsnorm",
        include_str!("../../examples/kernels/add_rmsnorm.cu"),
        "add_rmsnorm_rowblock",
    ),
];

/// The template for `family` with its kernel renamed to `name`.
pub fn render(family: &str, name: &str) -> Result<String> {
    let f = registry::get(family, "")?;
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(usage(format!(
            "'{name}' is not a C identifier: use letters, digits and _"
        )));
    }
    let (_, text, symbol) = TEMPLATES
        .iter()
        .find(|(fam, _, _)| *fam == f.name)
        .ok_or_else(|| usage(format!("no starting kernel for {} yet", f.name)))?;
    Ok(text.replace(symbol, name))
}

pub fn run(a: &NewArgs) -> Result<()> {
    let text = render(&a.family, &a.name)?;
    let family = registry::get(&a.family, "")?.name;
    if !a.dir.is_dir() {
        return Err(usage(format!("--dir {}: no such folder", a.dir.display())));
    }
    let path = a.dir.join(format!("{}.cu", a.name));
    if path.exists() {
        return Err(usage(format!(
            "{} exists already: choose another NAME or remove it",
            path.display()
        )));
    }
    crate::results::atomic::write_atomic(&path, text.as_bytes())?;
    println!(
        "wrote {}: a correct, simple {family} kernel to start from",
        path.display()
    );
    println!("verify, time and place it beside ours and the library:");
    println!(
        "  roofline bench {family} --kernel-file {} --interleave",
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_a_template_that_names_its_kernel() {
        for f in registry::ALL {
            let t = render(f.name, "my_kernel").unwrap();
            let src = crate::user::UserSource::parse(std::path::Path::new("my_kernel.cu"), t, None)
                .unwrap();
            assert_eq!(src.symbol, "my_kernel", "{}", f.name);
            assert_eq!(src.family.as_deref(), Some(f.name));
        }
        assert!(render("gemv", "9lives").is_err());
        assert!(render("softmax", "k").is_err());
    }
}
