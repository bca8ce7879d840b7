//! The measurement engine: honest timing of any BenchCase (events, warm-up, medians, the
//! noise seen, cold and hot L2, single launches or CUDA-graph replay) with the clocks read
//! around it.

pub mod blocker;
pub mod case;
pub mod clocks;
pub mod cold;
pub mod engine;
pub mod l2clean;
pub mod order;
pub mod sampling;
pub mod stats;
pub mod timesplit;

pub use case::{BenchCase, CaseId, Verification};
pub use engine::{measure, measure_group, CacheMode, MeasureConfig, Measurement, TimingMode};
pub use sampling::SampleStatus;
pub use stats::{Stats, StopRule};
