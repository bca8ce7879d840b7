//! Where a long command's wall time goes: the engine and the session add the time of each
//! part of their work to process-wide totals, and `report` prints, after each phase, how
//! that phase's time split (verification, buffer sets, warm-up, sampling and the GPU time in
//! it, the rests of the throttle rule). The sampled GPU time of a report is small beside its
//! wall time; these figures say what the rest is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A part of the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A case's verification before timing (GPU run, downloads, CPU references).
    Verify,
    /// A user's kernel checked again after timing, on fresh inputs.
    Recheck,
    /// Allocating and filling the buffer sets of the cold rotation.
    Prepare,
    /// The rest of a measurement's set-up and finish: clock reader, timer, L2 scratch,
    /// blocking kernel's flags, graph capture, final readings.
    Setup,
    /// Warm-up launches.
    WarmUp,
    /// The sampling loop, rests left out.
    Sampling,
    /// The rests of the duty limit (arithmetic-heavy work sampled in bursts).
    DutyRests,
    /// The rests after a capped or slow clock reading.
    ThrottleRests,
    /// Compiling users' kernels (NVRTC), where a command does it ahead of their groups.
    Compile,
}

impl Part {
    pub const ALL: [Part; 9] = [
        Part::Verify,
        Part::Recheck,
        Part::Prepare,
        Part::Setup,
        Part::WarmUp,
        Part::Sampling,
        Part::DutyRests,
        Part::ThrottleRests,
        Part::Compile,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::Verify => "verify",
            Part::Recheck => "re-check",
            Part::Prepare => "buffer sets",
            Part::Setup => "set-up",
            Part::WarmUp => "warm-up",
            Part::Sampling => "sampling",
            Part::DutyRests => "duty rests",
            Part::ThrottleRests => "throttle rests",
            Part::Compile => "compile",
        }
    }
}

const PARTS: usize = Part::ALL.len();
static NANOS: [AtomicU64; PARTS] = [const { AtomicU64::new(0) }; PARTS];
static SAMPLES: AtomicU64 = AtomicU64::new(0);
static SAMPLED_GPU_NANOS: AtomicU64 = AtomicU64::new(0);

/// Adds `d` to a part's total.
pub fn add(part: Part, d: Duration) {
    let i = Part::ALL
        .iter()
        .position(|p| *p == part)
        .expect("a listed part");
    NANOS[i].fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
}

/// Runs `f`, adding its time to `part`.
pub fn timed<T>(part: Part, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    add(part, t.elapsed());
    out
}

/// Counts `n` samples that together timed `gpu_ms` of GPU work.
pub fn add_samples(n: u64, gpu_ms: f64) {
    SAMPLES.fetch_add(n, Ordering::Relaxed);
    SAMPLED_GPU_NANOS.fetch_add((gpu_ms.max(0.0) * 1e6) as u64, Ordering::Relaxed);
}

/// The totals at one moment; the difference of two is what happened between them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Split {
    nanos: [u64; PARTS],
    samples: u64,
    sampled_gpu_nanos: u64,
}

/// The totals so far.
pub fn snapshot() -> Split {
    Split {
        nanos: std::array::from_fn(|i| NANOS[i].load(Ordering::Relaxed)),
        samples: SAMPLES.load(Ordering::Relaxed),
        sampled_gpu_nanos: SAMPLED_GPU_NANOS.load(Ordering::Relaxed),
    }
}

impl Split {
    /// What was added between `earlier` and this snapshot.
    pub fn since(&self, earlier: &Split) -> Split {
        Split {
            nanos: std::array::from_fn(|i| self.nanos[i].saturating_sub(earlier.nanos[i])),
            samples: self.samples.saturating_sub(earlier.samples),
            sampled_gpu_nanos: self
                .sampled_gpu_nanos
                .saturating_sub(earlier.sampled_gpu_nanos),
        }
    }

    pub fn seconds(&self, part: Part) -> f64 {
        let i = Part::ALL
            .iter()
            .position(|p| *p == part)
            .expect("a listed part");
        self.nanos[i] as f64 * 1e-9
    }

    /// "verify 5.1, buffer sets 0.8, ..., sampling 2.4 (10914 samples, GPU 0.47), ...,
    /// other 5.9" for a phase of `wall_s` seconds; parts under 0.05 s are left out, and
    /// "other" is the wall time no part claims (plans, records, progress, frees, the check's
    /// own verifications, which run outside the engine). None when nothing was measured.
    pub fn describe(&self, wall_s: f64) -> Option<String> {
        let total: f64 = Part::ALL.iter().map(|p| self.seconds(*p)).sum();
        if total <= 0.0 {
            return None;
        }
        let mut parts: Vec<String> = Part::ALL
            .iter()
            .filter(|p| self.seconds(**p) >= 0.05)
            .map(|p| {
                let mut s = format!("{} {:.1}", p.name(), self.seconds(*p));
                if *p == Part::Sampling {
                    s += &format!(
                        " ({} samples, GPU {:.2})",
                        self.samples,
                        self.sampled_gpu_nanos as f64 * 1e-9
                    );
                }
                s
            })
            .collect();
        parts.push(format!("other {:.1}", (wall_s - total).max(0.0)));
        Some(parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_is_the_difference_of_two_snapshots() {
        let before = snapshot();
        add(Part::Verify, Duration::from_millis(1500));
        add(Part::Sampling, Duration::from_millis(2000));
        add_samples(10, 0.25);
        timed(Part::Setup, || ());
        let s = snapshot().since(&before);
        // other tests may add to the totals at the same time: at least ours are there
        assert!(s.seconds(Part::Verify) >= 1.5);
        assert!(s.samples >= 10);
        let text = s.describe(10.0).unwrap();
        assert!(text.starts_with("verify 1."), "{text}");
        assert!(text.contains("sampling 2."), "{text}");
        assert!(text.contains("other "), "{text}");
        assert_eq!(Split::default().describe(3.0), None);
    }
}
