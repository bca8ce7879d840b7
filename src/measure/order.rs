//! The order in which an interleaved group's cases take their samples, round by round.
//!
//! A fixed order gives every case the same predecessor in every round, and on the H200 a
//! single launch's time depends on which kernel ran just before it: at 64x4096x4096 the
//! fusion sweep's fixed order moved fused / plain by ~1.4% and unfused / fused by ~3% against
//! the reversed order (docs/perf-log.md, A3). A fresh random permutation per round gives each
//! case every other case as its predecessor about equally often, so that effect reaches all
//! cases alike instead of biasing their ratios. Seeded: a run's order is reproducible.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The seed of every group's order (the order depends only on the group's size).
const ORDER_SEED: u64 = 0x006f_7264_6572; // "order"

pub struct RoundOrder {
    order: Vec<usize>,
    rng: ChaCha8Rng,
}

impl RoundOrder {
    pub fn new(cases: usize) -> Self {
        RoundOrder {
            order: (0..cases).collect(),
            rng: ChaCha8Rng::seed_from_u64(ORDER_SEED ^ cases as u64),
        }
    }

    /// The case indices of the next round, each once.
    pub fn next_round(&mut self) -> &[usize] {
        self.order.shuffle(&mut self.rng);
        &self.order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How often case `b` directly followed case `a` over `rounds` rounds, across round
    /// boundaries too (the GPU sees one stream of launches).
    fn successions(cases: usize, rounds: usize) -> Vec<Vec<usize>> {
        let mut o = RoundOrder::new(cases);
        let mut count = vec![vec![0usize; cases]; cases];
        let mut prev: Option<usize> = None;
        for _ in 0..rounds {
            for &i in o.next_round() {
                if let Some(p) = prev {
                    count[p][i] += 1;
                }
                prev = Some(i);
            }
        }
        count
    }

    #[test]
    fn every_round_is_a_permutation() {
        let mut o = RoundOrder::new(5);
        for _ in 0..100 {
            let mut r = o.next_round().to_vec();
            r.sort_unstable();
            assert_eq!(r, vec![0, 1, 2, 3, 4]);
        }
    }

    #[test]
    fn the_order_changes_between_rounds_and_repeats_between_runs() {
        let first: Vec<Vec<usize>> = {
            let mut o = RoundOrder::new(3);
            (0..20).map(|_| o.next_round().to_vec()).collect()
        };
        assert!(
            first.iter().any(|r| r != &first[0]),
            "the order never changed"
        );
        let mut again = RoundOrder::new(3);
        for r in &first {
            assert_eq!(
                again.next_round(),
                r.as_slice(),
                "the same seed, another order"
            );
        }
    }

    /// The largest spread, over cases, between how often its most and least frequent
    /// predecessor (other than itself) preceded it, relative to the most frequent.
    fn imbalance(count: &[Vec<usize>]) -> f64 {
        let n = count.len();
        (0..n)
            .map(|b| {
                let others: Vec<usize> = (0..n).filter(|&a| a != b).map(|a| count[a][b]).collect();
                let (lo, hi) = (*others.iter().min().unwrap(), *others.iter().max().unwrap());
                (hi - lo) as f64 / hi.max(1) as f64
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn each_case_follows_each_other_case_about_equally_often() {
        for cases in [3usize, 5] {
            let i = imbalance(&successions(cases, 6000));
            assert!(i <= 0.1, "{cases} cases: predecessors unbalanced by {i:.2}");
        }
    }

    #[test]
    fn a_fixed_order_is_what_the_balance_check_rejects() {
        // 0, 1, 2, 0, 1, 2, ...: case 1 always follows case 0, never case 2.
        let mut count = vec![vec![0usize; 3]; 3];
        let stream: Vec<usize> = (0..300).map(|k| k % 3).collect();
        for w in stream.windows(2) {
            count[w[0]][w[1]] += 1;
        }
        assert_eq!(imbalance(&count), 1.0);
    }
}
