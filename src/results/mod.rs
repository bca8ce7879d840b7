//! Results of a measurement run: the on-disk schema, exporters (terminal
//! table, JSON, CSV, Markdown), the noise-aware compare gate and the
//! markdown report renderer.
//!
//! Everything here is pure CPU code: it never touches the GPU.

pub mod atomic;
pub mod compare;
pub mod counters;
pub mod counters_table;
pub mod export;
pub mod report_md;
pub mod schema;

pub use atomic::write_atomic;
pub use compare::{compare, CompareReport, CompareRow, Verdict};
pub use counters::Counters;
pub use export::{render, Format};
pub use report_md::render_report;
pub use schema::{Ceiling, CeilingKind, Clocks, Record, RecordKey, ResultsFile, RunInfo, Shape};
