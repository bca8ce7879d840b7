//! Bytes and FLOPs from the hardware counters (`bench --counters`, `report --counters`).
//!
//! The work model gives each kernel's FLOPs and minimum bytes; the counters say what the
//! GPU moved: DRAM bytes read and written, the L2 hit rate, tensor and FMA instruction
//! counts. After the timing, the cases run once more in a child process of this binary
//! (`roofline probe-case`, hidden), under Nsight Compute: one process for all the cases of
//! one cache mode, each case in a profiler range that holds a marker kernel and then
//! exactly one launch; the parent parses ncu's CSV, splits it at the markers and attaches
//! each case's figures to its records (`results::Counters`).
//!
//! - [`parse`]: ncu's `--csv --page raw` output and its split at the markers, pure functions;
//! - [`metrics`]: the metrics asked for and the FLOP formula (its assumption is there);
//! - [`ncu`]: where ncu is, its exact command line, running it with a time limit;
//! - [`probe`]: the child's arguments, which rebuild each case through the registry;
//! - [`pass`]: the parent's side: one ncu run per cache mode, the rows to the records;
//! - [`report_list`]: the fixed cases `report --counters` profiles.

pub mod metrics;
pub mod ncu;
pub mod parse;
pub mod pass;
pub mod probe;
pub mod report_list;

pub use pass::CounterPass;
pub use probe::{ProbeSpec, Request};
