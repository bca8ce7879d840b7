//! Which samples count: each sample is judged by the clock readings taken before and after
//! it. A sample is clean when both readings are (ThrottleRule); the stopping rule and the
//! reported statistics use the clean samples, so no published median comes from a GPU the
//! power cap was slowing. `--sustained` keeps every sample (the capped steady state).

use super::clocks::{ClockSample, ThrottleRule};
use serde::{Deserialize, Serialize};

/// What a record's figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleStatus {
    /// From clean samples only.
    Clean,
    /// Too few clean samples within the time cap: the figure includes throttled samples and
    /// is not the kernel's unthrottled speed.
    Throttled,
    /// Every sample kept on purpose (--sustained): the capped, steady-state figure.
    Sustained,
    /// No clock readings (NVML missing): samples kept unjudged.
    Unjudged,
}

impl SampleStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            SampleStatus::Clean => "clean",
            SampleStatus::Throttled => "throttled",
            SampleStatus::Sustained => "sustained",
            SampleStatus::Unjudged => "unjudged",
        }
    }
}

/// One case's samples and their judgement. Samples wait as pending until the next reading.
#[derive(Debug, Clone, Default)]
pub struct SampleLog {
    pub times: Vec<f64>,
    pub clean: Vec<bool>,
    pending: usize,
}

impl SampleLog {
    pub fn push(&mut self, t: f64) {
        self.times.push(t);
        self.clean.push(false);
        self.pending += 1;
    }

    /// Judges the pending samples: clean when the readings on both sides of them were.
    pub fn settle(&mut self, before_clean: bool, after_clean: bool) {
        let n = self.times.len();
        for c in &mut self.clean[n - self.pending..] {
            *c = before_clean && after_clean;
        }
        self.pending = 0;
    }

    /// Drops the pending samples (e.g. a blocking kernel that timed out).
    pub fn drop_last(&mut self) {
        if self.times.pop().is_some() {
            self.clean.pop();
            self.pending = self.pending.saturating_sub(1);
        }
    }

    pub fn clean_times(&self) -> Vec<f64> {
        self.times
            .iter()
            .zip(&self.clean)
            .filter(|(_, &c)| c)
            .map(|(&t, _)| t)
            .collect()
    }

    pub fn throttled_fraction(&self) -> f64 {
        if self.times.is_empty() {
            return 0.0;
        }
        self.clean.iter().filter(|&&c| !c).count() as f64 / self.times.len() as f64
    }

    /// The samples the stopping rule and the statistics use, and what they are.
    pub fn kept(
        &self,
        sustained: bool,
        judged: bool,
        min_samples: usize,
    ) -> (Vec<f64>, SampleStatus) {
        if sustained {
            return (self.times.clone(), SampleStatus::Sustained);
        }
        if !judged {
            return (self.times.clone(), SampleStatus::Unjudged);
        }
        let clean = self.clean_times();
        if clean.len() >= min_samples.max(1) {
            (clean, SampleStatus::Clean)
        } else {
            (self.times.clone(), SampleStatus::Throttled)
        }
    }
}

/// The readings of one measurement and the judgement of each.
#[derive(Debug, Clone)]
pub struct Readings {
    rule: Option<ThrottleRule>,
    pub all: Vec<ClockSample>,
    /// Readings on both sides of a clean stretch of samples.
    pub clean: Vec<ClockSample>,
    last_clean: bool,
}

impl Readings {
    /// `rule` None: no NVML, nothing judged.
    pub fn new(rule: Option<ThrottleRule>) -> Self {
        Readings {
            rule,
            all: Vec::new(),
            clean: Vec::new(),
            last_clean: false,
        }
    }

    pub fn judged(&self) -> bool {
        self.rule.is_some()
    }

    /// Takes a reading in; returns (the previous reading was clean, this one is).
    pub fn add(&mut self, s: ClockSample) -> (bool, bool) {
        let now = self.rule.is_some_and(|r| r.clean(&s));
        let before = self.last_clean;
        if now {
            self.clean.push(s);
        }
        self.all.push(s);
        self.last_clean = now;
        (before, now)
    }

    /// Forgets the state before a rest: the next samples are judged from the next reading.
    pub fn restart(&mut self, s: ClockSample) {
        self.last_clean = self.rule.is_some_and(|r| r.clean(&s));
        self.all.push(s);
    }

    /// A slowdown is active, or the clock is below the clean band while the GPU works:
    /// time to rest.
    pub fn should_rest(&self, s: &ClockSample) -> bool {
        self.rule.is_some_and(|r| !r.clean(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvml_wrapper::bitmasks::device::ThrottleReasons;

    fn reading(sm: u32, capped: bool) -> ClockSample {
        ClockSample {
            sm_mhz: sm,
            mem_mhz: 0,
            temp_c: 0,
            power_w: 0.0,
            reasons: if capped {
                ThrottleReasons::SW_POWER_CAP.bits()
            } else {
                0
            },
        }
    }

    #[test]
    fn samples_between_two_clean_readings_are_clean() {
        let mut r = Readings::new(Some(ThrottleRule::new(1980)));
        let mut log = SampleLog::default();
        r.restart(reading(1980, false));
        log.push(1.0);
        log.push(1.1);
        let (b, a) = r.add(reading(1975, false));
        log.settle(b, a);
        // the cap sets in: the samples before the capped reading are not clean
        log.push(1.3);
        let (b, a) = r.add(reading(1600, true));
        log.settle(b, a);
        // and neither are the ones after it, up to the next clean reading
        log.push(1.4);
        let (b, a) = r.add(reading(1980, false));
        log.settle(b, a);
        log.push(1.05);
        let (b, a) = r.add(reading(1980, false));
        log.settle(b, a);
        assert_eq!(log.clean, vec![true, true, false, false, true]);
        assert_eq!(log.clean_times(), vec![1.0, 1.1, 1.05]);
        assert!((log.throttled_fraction() - 0.4).abs() < 1e-12);
        assert_eq!(r.clean.len(), 3);
    }

    #[test]
    fn the_kept_samples_and_the_status() {
        let mut log = SampleLog::default();
        for t in [1.0, 2.0, 3.0] {
            log.push(t);
        }
        log.settle(true, true);
        log.push(9.0);
        log.settle(true, false);
        assert_eq!(
            log.kept(false, true, 3),
            (vec![1.0, 2.0, 3.0], SampleStatus::Clean)
        );
        // too few clean samples: the figure is marked, all samples kept
        let (all, st) = log.kept(false, true, 4);
        assert_eq!((all.len(), st), (4, SampleStatus::Throttled));
        assert_eq!(log.kept(true, true, 4).1, SampleStatus::Sustained);
        assert_eq!(log.kept(false, false, 4).1, SampleStatus::Unjudged);
    }

    #[test]
    fn a_dropped_sample_leaves_the_rest_pending() {
        let mut log = SampleLog::default();
        log.push(1.0);
        log.push(50.0);
        log.drop_last();
        log.settle(true, true);
        assert_eq!(log.times, vec![1.0]);
        assert_eq!(log.clean, vec![true]);
    }

    #[test]
    fn without_nvml_nothing_is_clean_or_capped() {
        let mut r = Readings::new(None);
        assert!(!r.judged());
        assert_eq!(r.add(reading(1980, false)), (false, false));
        assert!(!r.should_rest(&reading(1980, true)));
        let judged = Readings::new(Some(ThrottleRule::new(1980)));
        assert!(
            judged.should_rest(&reading(1980, true)) && judged.should_rest(&reading(1700, false))
        );
        assert!(!judged.should_rest(&reading(1980, false)));
    }
}
