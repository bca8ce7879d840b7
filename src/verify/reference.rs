//! Float64 CPU references. Inputs are the exact fp16 (or, for the GEMM families' bf16 forms,
//! bf16) values the GPU saw.

use crate::dtype::Elem;
use half::f16;

/// GELU in f64. kind 0: tanh approximation, 1: erf.
pub fn gelu(x: f64, kind: i32) -> f64 {
    if kind == 0 {
        let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
        0.5 * x * (1.0 + u.tanh())
    } else {
        0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
    }
}

/// erf from libm (a port of the FreeBSD msun implementation, accurate to ~1 ulp).
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// What a GEMM applies to A . B before its one rounding: the GEMM family's epilogues. `T` is
/// how the operands are held: host slices for [`gemm_rows`], device buffers for the checks.
#[derive(Debug, Clone, Copy)]
pub enum Epilogue<T> {
    /// C = A . B
    Plain,
    /// C = gelu(A . B + bias[col]); kind 0 tanh, 1 erf.
    BiasGelu { bias: T, kind: i32 },
    /// C = A . B + bias[col] + residual[row, col] (residual row-major, C's shape).
    BiasResidual { bias: T, residual: T },
}

impl<T> Epilogue<T> {
    /// The same epilogue with each operand mapped by `f` (e.g. downloaded).
    pub fn try_map<U, E>(self, mut f: impl FnMut(T) -> Result<U, E>) -> Result<Epilogue<U>, E> {
        Ok(match self {
            Epilogue::Plain => Epilogue::Plain,
            Epilogue::BiasGelu { bias, kind } => Epilogue::BiasGelu {
                bias: f(bias)?,
                kind,
            },
            Epilogue::BiasResidual { bias, residual } => Epilogue::BiasResidual {
                bias: f(bias)?,
                residual: f(residual)?,
            },
        })
    }
}

/// Rows `rows` of C = epilogue(A . B), row-major, in f64, from inputs of element type E (fp16
/// or bf16: each value exactly as the GPU read it). The columns are shared out over the CPU's
/// cores (a report verifies hundreds of GEMMs): each thread reads its slice of B once for all
/// the rows, converting it as it goes. Every element is summed over k in order, as one thread
/// would, so the result does not depend on the number of cores.
pub fn gemm_rows<E: Elem, T: AsRef<[E]> + Sync>(
    a: &[E],
    b: &[E],
    epilogue: &Epilogue<T>,
    n: usize,
    k: usize,
    rows: &[usize],
) -> Vec<f64> {
    // Below about a million multiply-adds, starting threads costs more than it saves.
    let threads = if rows.len() * n * k < 1 << 20 {
        1
    } else {
        super::par::threads()
    };
    gemm_rows_on(threads, a, b, epilogue, n, k, rows)
}

/// [`gemm_rows`] on at most `threads` threads (tests compare thread counts).
pub fn gemm_rows_on<E: Elem, T: AsRef<[E]> + Sync>(
    threads: usize,
    a: &[E],
    b: &[E],
    epilogue: &Epilogue<T>,
    n: usize,
    k: usize,
    rows: &[usize],
) -> Vec<f64> {
    let mut out = vec![0.0f64; rows.len() * n];
    if n == 0 || rows.is_empty() {
        return out;
    }
    // Column slices of at least 64 (whole cache lines of B), one per thread.
    let width = n.div_ceil(threads.max(1)).max(64).min(n);
    let slices: Vec<(usize, usize)> = (0..n)
        .step_by(width)
        .map(|c0| (c0, (c0 + width).min(n)))
        .collect();
    let compute = |(c0, c1): (usize, usize)| gemm_cols(a, b, epilogue, n, k, rows, c0, c1);
    let parts: Vec<Vec<f64>> = if slices.len() == 1 {
        slices.iter().map(|&s| compute(s)).collect()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = slices
                .iter()
                .map(|&sl| {
                    let compute = &compute;
                    s.spawn(move || compute(sl))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("reference thread"))
                .collect()
        })
    };
    for (&(c0, c1), part) in slices.iter().zip(&parts) {
        let w = c1 - c0;
        for (ri, acc) in part.chunks(w).enumerate() {
            out[ri * n + c0..ri * n + c1].copy_from_slice(acc);
        }
    }
    out
}

/// Columns c0..c1 of the rows `rows` of epilogue(A . B): rows.len() x (c1 - c0), row-major.
#[allow(clippy::too_many_arguments)]
fn gemm_cols<E: Elem, T: AsRef<[E]>>(
    a: &[E],
    b: &[E],
    epilogue: &Epilogue<T>,
    n: usize,
    k: usize,
    rows: &[usize],
    c0: usize,
    c1: usize,
) -> Vec<f64> {
    let w = c1 - c0;
    let mut acc = vec![0.0f64; rows.len() * w];
    let mut brow = vec![0.0f64; w];
    for kk in 0..k {
        for (o, v) in brow.iter_mut().zip(&b[kk * n + c0..kk * n + c1]) {
            *o = v.to_f64();
        }
        for (&r, acc_row) in rows.iter().zip(acc.chunks_mut(w)) {
            let av = a[r * k + kk].to_f64();
            for (o, bv) in acc_row.iter_mut().zip(&brow) {
                *o += av * bv;
            }
        }
    }
    for (&r, acc_row) in rows.iter().zip(acc.chunks_mut(w)) {
        match epilogue {
            Epilogue::Plain => {}
            Epilogue::BiasGelu { bias, kind } => {
                for (o, bv) in acc_row.iter_mut().zip(&bias.as_ref()[c0..c1]) {
                    *o = gelu(*o + bv.to_f64(), *kind);
                }
            }
            Epilogue::BiasResidual { bias, residual } => {
                let res = &residual.as_ref()[r * n + c0..r * n + c1];
                for ((o, bv), rv) in acc_row.iter_mut().zip(&bias.as_ref()[c0..c1]).zip(res) {
                    *o += bv.to_f64() + rv.to_f64();
                }
            }
        }
    }
    acc
}

pub fn relu(x: &[f16]) -> Vec<f64> {
    x.iter().map(|v| v.to_f64().max(0.0)).collect()
}

pub fn gelu_all(x: &[f16], kind: i32) -> Vec<f64> {
    super::par::map_chunks(x.len(), |c| {
        x[c].iter()
            .map(|v| gelu(v.to_f64(), kind))
            .collect::<Vec<_>>()
    })
    .concat()
}

/// LayerNorm rows in f64 (biased variance, like torch).
pub fn layernorm(x: &[f16], gamma: &[f16], beta: &[f16], hidden: usize, eps: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(hidden) {
        let v: Vec<f64> = row.iter().map(|h| h.to_f64()).collect();
        let mean = v.iter().sum::<f64>() / hidden as f64;
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / hidden as f64;
        let inv = 1.0 / (var + eps).sqrt();
        for (i, x) in v.iter().enumerate() {
            out.push((x - mean) * inv * gamma[i].to_f64() + beta[i].to_f64());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn h(v: &[f32]) -> Vec<f16> {
        v.iter().map(|x| f16::from_f32(*x)).collect()
    }

    #[test]
    fn erf_matches_known_values() {
        assert_relative_eq!(erf(0.5), 0.520_499_877_813_046_5, max_relative = 1e-13);
        assert_relative_eq!(erf(1.0), 0.842_700_792_949_714_9, max_relative = 1e-13);
        assert_relative_eq!(erf(3.0), 0.999_977_909_503_001_4, max_relative = 1e-13);
        assert_relative_eq!(erf(-2.0), -0.995_322_265_018_952_7, max_relative = 1e-13);
        assert_eq!(erf(0.0), 0.0);
    }

    #[test]
    fn gelu_forms_agree_closely_and_hit_known_points() {
        assert_relative_eq!(gelu(1.0, 1), 0.841_344_746_068_542_9, max_relative = 1e-12);
        assert!((gelu(1.0, 0) - gelu(1.0, 1)).abs() < 1e-3);
        assert_eq!(gelu(0.0, 0), 0.0);
        assert!(gelu(-10.0, 1).abs() < 1e-20);
    }

    const PLAIN: Epilogue<&[f16]> = Epilogue::Plain;

    #[test]
    fn gemm_rows_by_hand() {
        // A = [[1,2],[3,4]], B = [[5,6],[7,8]] -> C = [[19,22],[43,50]]
        let a = h(&[1., 2., 3., 4.]);
        let b = h(&[5., 6., 7., 8.]);
        assert_eq!(
            gemm_rows(&a, &b, &PLAIN, 2, 2, &[0, 1]),
            vec![19., 22., 43., 50.]
        );
        assert_eq!(gemm_rows(&a, &b, &PLAIN, 2, 2, &[1]), vec![43., 50.]);
        let bias = h(&[-19., 0.]);
        let gelu_erf = Epilogue::BiasGelu {
            bias: &bias,
            kind: 1,
        };
        let fused = gemm_rows(&a, &b, &gelu_erf, 2, 2, &[0]);
        assert_eq!(fused[0], 0.0);
        assert_relative_eq!(fused[1], gelu(22.0, 1));
        // + bias + residual, the residual read at each row's own elements
        let residual = h(&[0.5, -1., 2., 0.25]);
        let epi = Epilogue::BiasResidual { bias, residual };
        assert_eq!(gemm_rows(&a, &b, &epi, 2, 2, &[1]), vec![26., 50.25]);
        let both = gemm_rows(&a, &b, &epi, 2, 2, &[0, 1]);
        assert_eq!(both, vec![0.5, 21., 26., 50.25]);
    }

    /// The reference reads bf16 inputs as the exact bf16 values: 1.001 is 1.0 in bf16 (8
    /// significant bits), 1.0009765625 in fp16; 2^20 is exact in bf16 and past fp16's range.
    #[test]
    fn gemm_rows_reads_bf16_inputs_exactly() {
        use half::bf16;
        let b16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
        let plain: Epilogue<&[bf16]> = Epilogue::Plain;
        assert_eq!(
            gemm_rows(&b16(&[1.001]), &b16(&[3.0]), &plain, 1, 1, &[0]),
            vec![3.0]
        );
        let f: Epilogue<&[f16]> = Epilogue::Plain;
        let h16 = h(&[1.001]);
        assert_eq!(
            gemm_rows(&h16, &h(&[3.0]), &f, 1, 1, &[0]),
            vec![3.0 * f16::from_f64(1.001).to_f64()]
        );
        // A = [[2^20, 1]], B = [[1, 0], [1, 2]]: C = [2^20 + 1, 2]; bias and residual in bf16
        let (a, b) = (b16(&[1048576.0, 1.0]), b16(&[1.0, 0.0, 1.0, 2.0]));
        assert_eq!(gemm_rows(&a, &b, &plain, 2, 2, &[0]), vec![1048577.0, 2.0]);
        let (bias, residual) = (b16(&[0.5, -1.0]), b16(&[1.001, 0.25]));
        let epi = Epilogue::BiasResidual {
            bias: &bias[..],
            residual: &residual[..],
        };
        assert_eq!(
            gemm_rows(&a, &b, &epi, 2, 2, &[0]),
            vec![1048577.0 + 0.5 + 1.0, 2.0 - 1.0 + 0.25]
        );
    }

    /// The original one-thread reference: each row streams the whole of B.
    fn gemm_rows_naive(
        a: &[f16],
        b: &[f16],
        epilogue: &Epilogue<&[f16]>,
        n: usize,
        k: usize,
        rows: &[usize],
    ) -> Vec<f64> {
        let bf: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
        let mut out = vec![0.0f64; rows.len() * n];
        for (&r, acc) in rows.iter().zip(out.chunks_mut(n)) {
            for kk in 0..k {
                let av = a[r * k + kk].to_f64();
                for (o, bv) in acc.iter_mut().zip(&bf[kk * n..(kk + 1) * n]) {
                    *o += av * bv;
                }
            }
            match epilogue {
                Epilogue::Plain => {}
                Epilogue::BiasGelu { bias, kind } => {
                    for (o, bv) in acc.iter_mut().zip(bias.iter()) {
                        *o = gelu(*o + bv.to_f64(), *kind);
                    }
                }
                Epilogue::BiasResidual { bias, residual } => {
                    let res = &residual[r * n..(r + 1) * n];
                    for ((o, bv), rv) in acc.iter_mut().zip(bias.iter()).zip(res) {
                        *o += bv.to_f64() + rv.to_f64();
                    }
                }
            }
        }
        out
    }

    #[test]
    fn gemm_rows_are_bit_identical_on_any_number_of_threads() {
        // n not a multiple of the slices, rows out of order and repeated
        let (m, n, k) = (9usize, 333usize, 71usize);
        let val = |i: usize| f16::from_f32(((i * 7919) % 2001) as f32 / 1000.0 - 1.0);
        let a: Vec<f16> = (0..m * k).map(val).collect();
        let b: Vec<f16> = (0..k * n).map(|i| val(i + 13)).collect();
        let bias: Vec<f16> = (0..n).map(|i| val(i + 5)).collect();
        let residual: Vec<f16> = (0..m * n).map(|i| val(i + 99)).collect();
        let rows = [8usize, 0, 3, 3, 7];
        for epi in [
            Epilogue::Plain,
            Epilogue::BiasGelu {
                bias: &bias[..],
                kind: 0,
            },
            Epilogue::BiasGelu {
                bias: &bias[..],
                kind: 1,
            },
            Epilogue::BiasResidual {
                bias: &bias[..],
                residual: &residual[..],
            },
        ] {
            let want = gemm_rows_naive(&a, &b, &epi, n, k, &rows);
            for threads in [1, 2, 3, 5, 64] {
                let got = gemm_rows_on(threads, &a, &b, &epi, n, k, &rows);
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(g, w)| g.to_bits() == w.to_bits()),
                    "{threads} threads"
                );
            }
            assert_eq!(gemm_rows(&a, &b, &epi, n, k, &rows).len(), rows.len() * n);
        }
    }

    #[test]
    fn gelu_all_keeps_the_order_across_chunks() {
        let n = 2 * super::super::par::CHUNK + 7;
        let x: Vec<f16> = (0..n)
            .map(|i| f16::from_f32((i % 200) as f32 / 50.0 - 2.0))
            .collect();
        let y = gelu_all(&x, 1);
        assert_eq!(y.len(), n);
        assert!(x.iter().zip(&y).all(|(x, y)| *y == gelu(x.to_f64(), 1)));
    }

    #[test]
    fn layernorm_by_hand() {
        // row [1,2,3,4]: mean 2.5, var 1.25
        let x = h(&[1., 2., 3., 4.]);
        let g = h(&[1., 1., 2., 1.]);
        let b = h(&[0., 0., 0., 1.]);
        let y = layernorm(&x, &g, &b, 4, 0.0);
        let s = 1.25f64.sqrt();
        assert_relative_eq!(y[0], -1.5 / s);
        assert_relative_eq!(y[2], 2.0 * 0.5 / s);
        assert_relative_eq!(y[3], 1.5 / s + 1.0);
    }

    #[test]
    fn relu_clamps() {
        assert_eq!(relu(&h(&[-1.0, 0.5])), vec![0.0, 0.5]);
    }
}
