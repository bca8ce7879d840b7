//! Verification's CPU work shared over the cores. The report verifies hundreds of cases, some
//! of 100+ million elements; one core took seconds per case for the float64 conversions and
//! comparisons alone. The work is cut into fixed chunks, each chunk's result computed in one
//! piece and the results kept in chunk order, so a sum over them is the same whatever the
//! number of cores.

use std::ops::Range;

/// Elements per chunk.
pub const CHUNK: usize = 1 << 16;

/// Below this many elements the work stays on the calling thread (starting threads costs
/// tens of microseconds each).
const PARALLEL_FROM: usize = 1 << 18;

/// The threads to use: the cores the process may run on.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |t| t.get())
}

/// `f` over the chunks of `0..n` ([0, CHUNK), [CHUNK, 2 CHUNK), ..., the last one shorter),
/// results in chunk order; on several threads when `n` is large.
pub fn map_chunks<R: Send>(n: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let threads = if n < PARALLEL_FROM { 1 } else { threads() };
    map_chunks_on(threads, n, f)
}

/// [`map_chunks`] on a given number of threads (tests compare thread counts).
pub fn map_chunks_on<R: Send>(
    threads: usize,
    n: usize,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    let chunks = n.div_ceil(CHUNK);
    let chunk = |c: usize| c * CHUNK..((c + 1) * CHUNK).min(n);
    let threads = threads.clamp(1, chunks.max(1));
    if threads == 1 {
        return (0..chunks).map(|c| f(chunk(c))).collect();
    }
    let per = chunks.div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t * per..((t + 1) * per).min(chunks))
                        .map(|c| f(chunk(c)))
                        .collect::<Vec<R>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("verification thread"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_element_once_in_order() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 17] {
            for threads in [1, 2, 3, 16] {
                let parts = map_chunks_on(threads, n, |r| r);
                assert_eq!(parts.len(), n.div_ceil(CHUNK), "n {n}, {threads} threads");
                let flat: Vec<usize> = parts.into_iter().flatten().collect();
                assert_eq!(flat, (0..n).collect::<Vec<_>>(), "n {n}, {threads} threads");
            }
        }
    }

    #[test]
    fn sums_do_not_depend_on_the_thread_count() {
        let x: Vec<f64> = (0..(3 * CHUNK + 5))
            .map(|i| 1.0 / (1.0 + i as f64))
            .collect();
        let sum = |threads| -> f64 {
            map_chunks_on(threads, x.len(), |r| x[r].iter().sum::<f64>())
                .into_iter()
                .sum()
        };
        let one = sum(1);
        for t in [2, 3, 4, 7] {
            assert_eq!(sum(t).to_bits(), one.to_bits(), "{t} threads");
        }
    }
}
