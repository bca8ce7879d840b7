//! A family's kernel parameter list, and the check of a compiled kernel against it (read
//! from the PTX entry's .param list, so it works without a GPU: `--compile-only`).

use crate::error::usage;
use anyhow::Result;

/// How a parameter is passed: what PTX can tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A device pointer (64-bit).
    Ptr,
    /// int (32-bit)
    I32,
    /// unsigned long long (64-bit)
    U64,
    /// float
    F32,
}

impl ParamKind {
    /// The PTX parameter class: pointers and 64-bit integers look alike there.
    fn ptx_class(self) -> &'static str {
        match self {
            ParamKind::Ptr | ParamKind::U64 => "64-bit",
            ParamKind::I32 => "32-bit integer",
            ParamKind::F32 => "32-bit float",
        }
    }
}

/// One parameter of a family's kernel signature, e.g. `const __half* x`.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub c: &'static str,
    pub kind: ParamKind,
}

pub const fn p(c: &'static str, kind: ParamKind) -> Param {
    Param { c, kind }
}

/// "(const __half* x, ..., int K)".
pub fn c_signature(params: &[Param]) -> String {
    format!(
        "({})",
        params.iter().map(|p| p.c).collect::<Vec<_>>().join(", ")
    )
}

/// The PTX classes of `symbol`'s parameters, in order.
fn ptx_params(ptx: &str, symbol: &str) -> Option<Vec<&'static str>> {
    let start = ptx.find(&format!(".entry {symbol}("))?;
    let body = &ptx[start..];
    let end = body.find(')')?;
    Some(
        body[..end]
            .split(".param")
            .skip(1)
            .map(|p| {
                let ty = p.split_whitespace().next().unwrap_or("");
                match ty {
                    ".u64" | ".s64" | ".b64" => "64-bit",
                    ".f32" => "32-bit float",
                    ".u32" | ".s32" | ".b32" => "32-bit integer",
                    _ => "other",
                }
            })
            .collect(),
    )
}

/// Checks that the compiled `symbol` takes `params` (the family's signature).
pub fn check(ptx: &str, symbol: &str, family: &str, params: &[Param]) -> Result<()> {
    let Some(got) = ptx_params(ptx, symbol) else {
        return Err(usage(format!(
            "the compiled file has no kernel entry '{symbol}': declare it extern \"C\" __global__"
        )));
    };
    let want: Vec<&str> = params.iter().map(|p| p.kind.ptx_class()).collect();
    if got != want {
        return Err(usage(format!(
            "{symbol} takes {} parameter(s) ({}), but a {family} kernel takes {}: {}",
            got.len(),
            got.join(", "),
            params.len(),
            c_signature(params)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "
.visible .entry gemv_naive(
	.param .u64 .ptr .align 1 gemv_naive_param_0,
	.param .u64 .ptr .align 1 gemv_naive_param_1,
	.param .u64 .ptr .align 1 gemv_naive_param_2,
	.param .u32 gemv_naive_param_3,
	.param .u32 gemv_naive_param_4,
	.param .u32 gemv_naive_param_5
)
{
";

    const GEMV: &[Param] = &[
        p("const __half* x", ParamKind::Ptr),
        p("const __half* W", ParamKind::Ptr),
        p("__half* y", ParamKind::Ptr),
        p("int M", ParamKind::I32),
        p("int N", ParamKind::I32),
        p("int K", ParamKind::I32),
    ];

    #[test]
    fn a_matching_entry_passes_and_others_are_named() {
        check(PTX, "gemv_naive", "gemv", GEMV).unwrap();
        let e = check(PTX, "gemv_naive", "gemv", &GEMV[..5])
            .unwrap_err()
            .to_string();
        assert!(e.contains("takes 6") && e.contains("int N)"), "{e}");
        let mut f = GEMV.to_vec();
        f[5] = p("float eps", ParamKind::F32);
        assert!(check(PTX, "gemv_naive", "gemv", &f).is_err());
        assert!(check(PTX, "other", "gemv", GEMV)
            .unwrap_err()
            .to_string()
            .contains("other"));
    }
}
