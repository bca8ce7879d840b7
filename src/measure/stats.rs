//! Sample statistics and the adaptive stopping rule.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub p10: f64,
    pub p90: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
    /// MAD / median: the relative noise.
    pub noise: f64,
    pub n: usize,
}

/// Linear-interpolated percentile of sorted data, q in [0, 1].
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of no samples");
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// The median of `v` (reordering it), exactly as `percentile(&sorted(v), 0.5)` gives it,
/// found by selection in linear time instead of a sort.
fn median_in_place(v: &mut [f64]) -> f64 {
    assert!(!v.is_empty(), "median of no samples");
    let pos = 0.5 * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let (_, &mut at_lo, above) = v.select_nth_unstable_by(lo, f64::total_cmp);
    // The next in order is the least of those above the lo-th.
    let at_hi = if hi == lo {
        at_lo
    } else {
        above
            .iter()
            .copied()
            .min_by(f64::total_cmp)
            .unwrap_or(at_lo)
    };
    at_lo + (at_hi - at_lo) * (pos - lo as f64)
}

/// Relative noise of samples: MAD / median (0 for fewer than two samples). The stop rule
/// asks it after every round of samples, so it selects rather than sorts.
pub fn relative_noise(samples: &[f64]) -> f64 {
    if samples.len() < 2 {
        return 0.0;
    }
    let mut v = samples.to_vec();
    let med = median_in_place(&mut v);
    for x in v.iter_mut() {
        *x = (*x - med).abs();
    }
    let mad = median_in_place(&mut v);
    if med > 0.0 {
        mad / med
    } else {
        0.0
    }
}

pub fn summarize(samples: &[f64]) -> Stats {
    let s = sorted(samples);
    let median = percentile(&s, 0.5);
    let dev = sorted(&s.iter().map(|x| (x - median).abs()).collect::<Vec<_>>());
    let mad = percentile(&dev, 0.5);
    Stats {
        median,
        min: s[0],
        max: s[s.len() - 1],
        p10: percentile(&s, 0.1),
        p90: percentile(&s, 0.9),
        mad,
        noise: if median > 0.0 { mad / median } else { 0.0 },
        n: s.len(),
    }
}

/// The median's standard error relative to the median, from the samples' relative MAD and
/// count: sigma ~ 1.4826 MAD for a normal spread, and the median's error ~ 1.2533 sigma /
/// sqrt(n), so 1.858 x noise / sqrt(n).
pub fn median_rel_error(noise: f64, n: usize) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    1.4826 * 1.2533 * noise / (n as f64).sqrt()
}

fn default_median_precision() -> f64 {
    0.002
}

/// When to stop sampling: at least `min_samples` and `min_time_ms`, then as soon as the
/// relative noise is at most `target_noise`, or the median is known to `median_precision`
/// (its relative standard error: a spread of 1.5% needs ~200 samples for 0.2%, where waiting
/// for the spread itself to drop would sample to the cap); never past `max_samples` or
/// `max_time_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StopRule {
    pub min_samples: usize,
    pub max_samples: usize,
    pub min_time_ms: f64,
    pub max_time_ms: f64,
    pub target_noise: f64,
    #[serde(default = "default_median_precision")]
    pub median_precision: f64,
}

impl Default for StopRule {
    fn default() -> Self {
        StopRule {
            min_samples: 10,
            max_samples: 2000,
            min_time_ms: 100.0,
            max_time_ms: 3000.0,
            target_noise: 0.01,
            median_precision: default_median_precision(),
        }
    }
}

impl StopRule {
    pub fn should_stop(&self, samples: &[f64], elapsed_ms: f64) -> bool {
        if samples.len() >= self.max_samples || elapsed_ms >= self.max_time_ms {
            return true;
        }
        if samples.len() < self.min_samples || elapsed_ms < self.min_time_ms {
            return false;
        }
        let noise = relative_noise(samples);
        noise <= self.target_noise
            || median_rel_error(noise, samples.len()) <= self.median_precision
    }

    /// Checks the rule is usable; the message names the CLI flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.min_samples < 1 {
            return Err("--min-samples must be at least 1".into());
        }
        if self.max_samples < self.min_samples {
            return Err(format!(
                "--max-samples ({}) must be at least --min-samples ({})",
                self.max_samples, self.min_samples
            ));
        }
        if !(self.target_noise > 0.0 && self.target_noise < 1.0) {
            return Err("--target-noise must be a fraction between 0 and 1, e.g. 0.01".into());
        }
        if !(self.median_precision > 0.0 && self.median_precision < 1.0) {
            return Err("--median-precision must be a fraction between 0 and 1, e.g. 0.002".into());
        }
        if !(self.min_time_ms >= 0.0 && self.max_time_ms > 0.0)
            || self.max_time_ms < self.min_time_ms
        {
            return Err("--max-time-ms must be positive and at least --min-time-ms".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn a_spread_above_the_target_stops_once_the_median_is_known() {
        let rule = StopRule {
            min_samples: 5,
            max_samples: 100_000,
            min_time_ms: 0.0,
            max_time_ms: 1e9,
            target_noise: 0.01,
            median_precision: 0.002,
        };
        // A 2% spread never meets the 1% target; its median's error falls under 0.2% near
        // (1.858 * 0.02 / 0.002)^2 = 345 samples.
        let spread = |n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| if i % 2 == 0 { 0.98 } else { 1.02 })
                .collect()
        };
        assert_relative_eq!(relative_noise(&spread(400)), 0.02, epsilon = 1e-9);
        assert!(!rule.should_stop(&spread(300), 1.0));
        assert!(rule.should_stop(&spread(400), 1.0));
        // A quiet one stops on the spread at once.
        assert!(rule.should_stop(&[1.0; 5], 1.0));
        assert!(median_rel_error(0.01, 0).is_infinite());
    }

    #[test]
    fn the_selected_noise_is_the_sorted_one_exactly() {
        // The sort-based definition, as summarize computes it.
        let by_sorting = |xs: &[f64]| -> f64 {
            let s = sorted(xs);
            let med = percentile(&s, 0.5);
            let dev = sorted(&s.iter().map(|x| (x - med).abs()).collect::<Vec<_>>());
            if med > 0.0 {
                percentile(&dev, 0.5) / med
            } else {
                0.0
            }
        };
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in (2..60).chain([199, 200, 1000, 2001]) {
            let xs: Vec<f64> = (0..n).map(|_| 0.1 + next() * next()).collect();
            assert_eq!(
                relative_noise(&xs).to_bits(),
                by_sorting(&xs).to_bits(),
                "n {n}"
            );
            // ties and repeated values
            let ties: Vec<f64> = xs.iter().map(|v| (v * 4.0).round() / 4.0 + 1.0).collect();
            assert_eq!(
                relative_noise(&ties).to_bits(),
                by_sorting(&ties).to_bits(),
                "n {n}"
            );
        }
        assert_eq!(relative_noise(&[1.0, 3.0]), by_sorting(&[1.0, 3.0]));
        assert_eq!(relative_noise(&[0.0, 0.0, 0.0]), 0.0);
    }

    #[test]
    fn summary_of_known_samples() {
        let s = summarize(&[5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        // p10 at position 0.4 between 1 and 2
        assert_relative_eq!(s.p10, 1.4);
        assert_relative_eq!(s.p90, 4.6);
        // deviations 2,2,1,1,0 -> MAD 1
        assert_eq!(s.mad, 1.0);
        assert_relative_eq!(s.noise, 1.0 / 3.0);
        assert_eq!(s.n, 5);
    }

    #[test]
    fn median_of_even_count_interpolates() {
        assert_eq!(summarize(&[1.0, 2.0, 3.0, 10.0]).median, 2.5);
    }

    #[test]
    fn one_sample_has_no_noise() {
        let s = summarize(&[7.0]);
        assert_eq!((s.median, s.p10, s.p90, s.noise), (7.0, 7.0, 7.0, 0.0));
    }

    #[test]
    fn outlier_barely_moves_median_and_mad() {
        let mut xs = vec![1.0; 20];
        xs.push(100.0);
        let s = summarize(&xs);
        assert_eq!(s.median, 1.0);
        assert_eq!(s.noise, 0.0);
    }

    #[test]
    fn stop_rule_respects_minimums_noise_and_caps() {
        let r = StopRule {
            min_samples: 5,
            max_samples: 50,
            min_time_ms: 10.0,
            max_time_ms: 100.0,
            target_noise: 0.01,
            median_precision: 0.002,
        };
        let quiet = vec![1.0; 5];
        assert!(!r.should_stop(&quiet[..4], 50.0), "too few samples");
        assert!(!r.should_stop(&quiet, 5.0), "too little time");
        assert!(r.should_stop(&quiet, 10.0), "quiet and long enough");
        let noisy = [1.0, 1.5, 0.7, 1.3, 0.9, 1.2];
        assert!(!r.should_stop(&noisy, 20.0), "noise above target");
        assert!(r.should_stop(&noisy, 100.0), "time cap");
        assert!(r.should_stop(&[1.0, 2.0].repeat(25), 20.0), "sample cap");
    }

    #[test]
    fn stop_rule_validation_names_flags() {
        let mut r = StopRule::default();
        assert!(r.validate().is_ok());
        r.max_samples = 1;
        assert!(r.validate().unwrap_err().contains("--max-samples"));
        r = StopRule {
            target_noise: 0.0,
            ..Default::default()
        };
        assert!(r.validate().unwrap_err().contains("--target-noise"));
        r = StopRule {
            median_precision: 0.0,
            ..Default::default()
        };
        assert!(r.validate().unwrap_err().contains("--median-precision"));
    }
}
