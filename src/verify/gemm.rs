//! GEMM-family verification: a float64 CPU reference (all rows for small problems, a fixed
//! sample of rows for large ones) and a full comparison with cuBLAS output, in the output's
//! dtype (fp16, or bf16 for the GEMM families' bf16 forms) with that dtype's tolerance.

use super::compare::{compare, compare_elems, Tolerance};
use super::reference::{gemm_rows, Epilogue};
use crate::dtype::Elem;
use crate::gpu::{DevBuf, Gpu};
use crate::measure::Verification;
use anyhow::Result;

/// Problems up to this many multiply-adds get a full CPU reference.
pub const FULL_CPU_MACS: u64 = 1 << 28;
/// Rows checked on the CPU for larger problems.
pub const SAMPLED_ROWS: usize = 24;

/// Rows the CPU reference covers: all when small, else first, last and evenly spread ones,
/// as many as keep the CPU work near FULL_CPU_MACS (at least 2).
pub fn reference_rows(m: u64, n: u64, k: u64) -> Vec<usize> {
    if m * n * k <= FULL_CPU_MACS {
        return (0..m as usize).collect();
    }
    let m = m as usize;
    let budget = (FULL_CPU_MACS / (n * k).max(1)).max(2) as usize;
    let count = SAMPLED_ROWS.min(budget).min(m);
    let mut rows: Vec<usize> = (0..count)
        .map(|i| i * (m - 1) / (count - 1).max(1))
        .collect();
    if count > 2 {
        rows.push(m / 2 + 1);
    }
    rows.retain(|r| *r < m);
    rows.sort_unstable();
    rows.dedup();
    rows
}

fn gather_rows<E: Elem>(c: &[E], n: usize, rows: &[usize]) -> Vec<E> {
    rows.iter()
        .flat_map(|&r| c[r * n..(r + 1) * n].iter().copied())
        .collect()
}

/// Compares C (already computed, synchronised) with the float64 CPU reference of
/// epilogue(A . B) within `tol`: `Tolerance::gemm(E::DTYPE)` for every kernel of ours,
/// `Tolerance::library(E::DTYPE)` for a library's result.
#[allow(clippy::too_many_arguments)]
pub fn check_against_cpu<E: Elem>(
    gpu: &Gpu,
    a: &DevBuf<E>,
    b: &DevBuf<E>,
    c: &DevBuf<E>,
    epilogue: Epilogue<&DevBuf<E>>,
    m: u64,
    n: u64,
    k: u64,
    tol: Tolerance,
) -> Result<Verification> {
    let (ah, bh, ch) = (a.download(gpu)?, b.download(gpu)?, c.download(gpu)?);
    let operands = epilogue.try_map(|buf| buf.download(gpu))?;
    let rows = reference_rows(m, n, k);
    let reference = gemm_rows(&ah, &bh, &operands, n as usize, k as usize, &rows);
    let got = gather_rows(&ch, n as usize, &rows);
    let cmp = compare(&got, &reference, tol);
    let what = if rows.len() as u64 == m {
        "float64 CPU".to_string()
    } else {
        format!("float64 CPU ({} sampled rows)", rows.len())
    };
    // Rows outside the CPU sample must still have been written.
    let unwritten = ch.iter().filter(|v| v.to_bits() == E::POISON).count();
    let mut detail = cmp.summary(&what);
    if unwritten > cmp.unwritten {
        detail += &format!(", {unwritten} elements never written in total");
    }
    Ok(Verification {
        passed: cmp.passed && unwritten == 0,
        rel_err: cmp.rel_fro,
        detail,
    })
}

/// Compares every element of C with a cuBLAS result of the same problem (same dtype), within
/// the library bound (in bf16 the library itself can be 3 ulps off: see LIBRARY_BF16).
pub fn check_against_library<E: Elem>(
    out: &DevBuf<E>,
    reference: &DevBuf<E>,
    gpu: &Gpu,
    library: &str,
) -> Result<Verification> {
    let (o, r) = (out.download(gpu)?, reference.download(gpu)?);
    let cmp = compare_elems(&o, &r, Tolerance::library(E::DTYPE));
    Ok(Verification {
        passed: cmp.passed,
        rel_err: cmp.rel_fro,
        detail: cmp.summary(library),
    })
}

/// Both checks must pass; the reported error is the CPU one (the primary reference).
pub fn both(cpu: Verification, lib: Verification) -> Verification {
    Verification {
        passed: cpu.passed && lib.passed,
        rel_err: cpu.rel_err.max(lib.rel_err),
        detail: format!("{}; {}", cpu.detail, lib.detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn small_problems_check_every_row() {
        assert_eq!(reference_rows(127, 257, 129), (0..127).collect::<Vec<_>>());
    }

    #[test]
    fn large_problems_sample_first_last_and_middle() {
        let r = reference_rows(4096, 4096, 4096);
        assert!(r.len() <= SAMPLED_ROWS + 1 && r.len() > 10);
        assert_eq!(r[0], 0);
        assert_eq!(*r.last().unwrap(), 4095);
        assert!(r.contains(&2049));
        assert!(r.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn huge_rows_are_capped_by_cpu_budget() {
        // 2^28 / 8192^2 = 4 rows in the budget, plus the middle row
        let r = reference_rows(256, 8192, 8192);
        assert_eq!(r, vec![0, 85, 129, 170, 255]);
        assert_eq!(reference_rows(3, 1 << 15, 1 << 15), vec![0, 2]);
    }

    #[test]
    fn gather_picks_rows() {
        let c: Vec<f16> = (0..6).map(|i| f16::from_f32(i as f32)).collect();
        assert_eq!(
            gather_rows(&c, 2, &[2]),
            vec![f16::from_f32(4.0), f16::from_f32(5.0)]
        );
    }
}
