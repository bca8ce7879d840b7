//! A user kernel's launch geometry: grid, block and dynamic shared memory as expressions of
//! the shape (evalexpr: integers, + - * / %, parentheses, min, max, and cdiv(a, b)).

use crate::error::usage;
use crate::results::schema::Shape;
use anyhow::Result;
use evalexpr::{
    eval_with_context, ContextWithMutableFunctions, ContextWithMutableVariables,
    DefaultNumericTypes, EvalexprError, Function, HashMapContext, Value,
};

/// The shape's variables as the launch block names them.
pub fn shape_vars(s: &Shape) -> Vec<(&'static str, u64)> {
    match *s {
        Shape::Gemm { m, n, k } => vec![("M", m), ("N", n), ("K", k)],
        Shape::Rows { rows, hidden } => vec![("rows", rows), ("hidden", hidden)],
        Shape::Elems { elems } => vec![("n", elems)],
        Shape::Bytes { bytes } => vec![("bytes", bytes)],
    }
}

/// Grid, block (x, y, z), dynamic shared memory bytes and cluster (x, y, z) at one shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub smem: u32,
    pub cluster: Option<(u32, u32, u32)>,
}

/// The largest cluster every sm_90 GPU runs (larger ones need an opt-in per kernel).
const MAX_PORTABLE_CLUSTER: u32 = 8;

fn context(s: &Shape) -> Result<HashMapContext<DefaultNumericTypes>> {
    let mut c = HashMapContext::<DefaultNumericTypes>::new();
    for (name, v) in shape_vars(s) {
        c.set_value(name.into(), Value::from_int(v as i64))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    c.set_function(
        "cdiv".into(),
        Function::new(|arg| {
            let t = arg.as_tuple()?;
            if t.len() != 2 {
                return Err(EvalexprError::CustomMessage(
                    "cdiv takes two arguments".into(),
                ));
            }
            let (a, b): (i64, i64) = (t[0].as_int()?, t[1].as_int()?);
            if b <= 0 {
                return Err(EvalexprError::CustomMessage(
                    "cdiv by a non-positive value".into(),
                ));
            }
            Ok(Value::from_int((a + b - 1).div_euclid(b)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(c)
}

/// Evaluates "(a, b, c)", "(a, b)" or "a" to three positive u32 values (missing ones 1).
fn dim3(
    what: &str,
    expr: &str,
    ctx: &HashMapContext<DefaultNumericTypes>,
) -> Result<(u32, u32, u32)> {
    let bad = |msg: String| usage(format!("launch block: {what} = {expr}: {msg}"));
    let v = eval_with_context(expr, ctx).map_err(|e| bad(e.to_string()))?;
    let parts: Vec<Value> = match v {
        Value::Tuple(t) => t,
        other => vec![other],
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(bad("give one to three values".into()));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let n = p
            .as_int()
            .map_err(|_| bad(format!("{p} is not an integer")))?;
        if n < 1 || n > u32::MAX as i64 {
            return Err(bad(format!(
                "evaluates to {n}; each value must be at least 1"
            )));
        }
        out[i] = n as u32;
    }
    Ok((out[0], out[1], out[2]))
}

/// The launch at `shape`, validated against the CUDA limits every GPU shares.
pub fn evaluate(
    grid: &str,
    block: &str,
    smem: &str,
    cluster: Option<&str>,
    shape: &Shape,
) -> Result<Launch> {
    let ctx = context(shape)?;
    let grid3 = dim3("grid", grid, &ctx)?;
    let block3 = dim3("block", block, &ctx)?;
    let threads = block3.0 as u64 * block3.1 as u64 * block3.2 as u64;
    if threads > 1024 || block3.2 > 64 {
        return Err(usage(format!(
            "launch block: block = {block} gives {block3:?} at {}: at most 1024 threads, z at most 64",
            shape.label()
        )));
    }
    if grid3.1 > 65535 || grid3.2 > 65535 {
        return Err(usage(format!(
            "launch block: grid = {grid} gives {grid3:?} at {}: y and z at most 65535",
            shape.label()
        )));
    }
    let smem_v = eval_with_context(smem, &ctx)
        .and_then(|v| v.as_int())
        .map_err(|e| usage(format!("launch block: smem = {smem}: {e}")))?;
    if !(0..=232_448).contains(&smem_v) {
        return Err(usage(format!(
            "launch block: smem = {smem} gives {smem_v} bytes: between 0 and 227 KiB"
        )));
    }
    let cluster = match cluster {
        None => None,
        Some(expr) => {
            let c = dim3("cluster", expr, &ctx)?;
            if c.0 * c.1 * c.2 > MAX_PORTABLE_CLUSTER {
                return Err(usage(format!(
                    "launch block: cluster = {expr} gives {c:?}: at most \
                     {MAX_PORTABLE_CLUSTER} blocks per cluster"
                )));
            }
            if grid3.0 % c.0 != 0 || grid3.1 % c.1 != 0 || grid3.2 % c.2 != 0 {
                return Err(usage(format!(
                    "launch block: the grid {grid3:?} at {} is not a whole number of clusters \
                     {c:?}: round the grid up to a multiple of the cluster",
                    shape.label()
                )));
            }
            Some(c)
        }
    };
    Ok(Launch {
        grid: grid3,
        block: block3,
        smem: smem_v as u32,
        cluster,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_of_the_shape() {
        let s = Shape::Gemm {
            m: 3,
            n: 1000,
            k: 7,
        };
        let l = evaluate("(cdiv(N, 256), M, 1)", "256", "4 * K", None, &s).unwrap();
        assert_eq!(l.grid, (4, 3, 1));
        assert_eq!(l.block, (256, 1, 1));
        assert_eq!(l.smem, 28);
        assert_eq!(l.cluster, None);
        let l = evaluate("(2 * cdiv(N, 512), M)", "128", "0", Some("(2, 1)"), &s).unwrap();
        assert_eq!((l.grid, l.cluster), ((4, 3, 1), Some((2, 1, 1))));
        let r = Shape::Rows {
            rows: 5,
            hidden: 4099,
        };
        let l = evaluate("rows", "(min(1024, cdiv(hidden, 8)), 1)", "0", None, &r).unwrap();
        assert_eq!((l.grid, l.block), ((5, 1, 1), (513, 1, 1)));
    }

    #[test]
    fn bad_geometry_is_a_usage_error() {
        let s = Shape::Elems { elems: 10 };
        for (g, b, m) in [
            ("cdiv(n, 0)", "1", "0"),
            ("n - 10", "1", "0"),
            ("1", "2048", "0"),
            ("1", "1", "1 << 30"),
            ("M", "1", "0"),
            ("1.5", "1", "0"),
            ("(1, 2, 3, 4)", "1", "0"),
        ] {
            let e = evaluate(g, b, m, None, &s).unwrap_err();
            assert_eq!(crate::error::exit_code_of(&e), 2, "{g} {b} {m}: {e}");
        }
        // A cluster too large, or one the grid is not a multiple of.
        for (g, c) in [("16", "16"), ("3", "2"), ("(4, 3)", "(1, 2)"), ("4", "0")] {
            let e = evaluate(g, "32", "0", Some(c), &s).unwrap_err();
            assert_eq!(crate::error::exit_code_of(&e), 2, "{g} {c}: {e}");
        }
    }
}
