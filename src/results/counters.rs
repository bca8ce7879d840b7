//! What the hardware counters measured for a record (`bench --counters`, `report
//! --counters`): DRAM bytes, L2 hit rate, FLOPs. Every field is optional and left out of the
//! JSON when absent, so results files written before counters existed still load, and a
//! metric Nsight Compute did not give stays absent rather than reading 0.

use serde::{Deserialize, Serialize};

/// The counter fields of a [`super::schema::Record`], flattened into it on disk (the JSON
/// keys are these field names, at the record's top level).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Counters {
    /// DRAM bytes read + written by the profiled launch (all its kernels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_measured: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_write: Option<f64>,
    /// L2 sector hit rate in percent; with several kernels, their rates weighted by each
    /// kernel's GPU time (src/counters/metrics.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_hit_rate: Option<f64>,
    /// FLOPs counted from tensor-path and FMA/ADD/MUL instruction counters
    /// (src/counters/metrics.rs gives the formula and its assumption).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_measured: Option<f64>,
    /// How many kernels the profiled launch ran (a library call may run more than one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters_kernels: Option<u32>,
    /// Their GPU time under the profiler (gpu__time_duration), ms: not the timed median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters_duration_ms: Option<f64>,
}

impl Counters {
    /// True when the record was profiled (any kernel counted).
    pub fn is_present(&self) -> bool {
        self.counters_kernels.is_some()
    }

    /// Measured DRAM bytes over the work model's bytes.
    pub fn dram_ratio(&self, model_bytes: f64) -> Option<f64> {
        self.dram_bytes_measured
            .filter(|_| model_bytes > 0.0)
            .map(|b| b / model_bytes)
    }

    /// Names of the numeric fields that are NaN or infinite (JSON cannot hold them).
    pub fn non_finite_fields(&self) -> Vec<&'static str> {
        [
            ("dram_bytes_measured", self.dram_bytes_measured),
            ("dram_bytes_read", self.dram_bytes_read),
            ("dram_bytes_write", self.dram_bytes_write),
            ("l2_hit_rate", self.l2_hit_rate),
            ("flops_measured", self.flops_measured),
            ("counters_duration_ms", self.counters_duration_ms),
        ]
        .into_iter()
        .filter(|(_, v)| v.is_some_and(|v| !v.is_finite()))
        .map(|(n, _)| n)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::counters_table::tests::with_sample_counters;
    use crate::results::schema::tests::{fixture, FIXTURE};
    use crate::results::ResultsFile;

    #[test]
    fn old_files_load_and_absent_counters_stay_out_of_the_json() {
        // The fixture predates counters: it loads, and writes none back.
        let f = fixture();
        assert!(f.records.iter().all(|r| !r.counters.is_present()));
        assert!(!FIXTURE.contains("dram_bytes"));
        assert!(!f.to_json().unwrap().contains("dram_bytes"));
    }

    #[test]
    fn counters_round_trip_at_the_records_top_level() {
        let f = ResultsFile {
            records: with_sample_counters(),
            ..fixture()
        };
        let text = f.to_json().unwrap();
        assert_eq!(ResultsFile::from_json(&text).unwrap(), f);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let with: Vec<&serde_json::Value> = v["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r.get("l2_hit_rate").is_some())
            .collect();
        assert_eq!(with.len(), 1);
        assert_eq!(with[0]["counters_kernels"], 1);
        assert!(with[0].get("counters").is_none(), "flattened, not nested");
    }

    #[test]
    fn non_finite_counters_are_refused() {
        let mut recs = with_sample_counters();
        let r = recs.iter_mut().find(|r| r.counters.is_present()).unwrap();
        r.counters.l2_hit_rate = Some(f64::NAN);
        let f = ResultsFile {
            records: recs,
            ..fixture()
        };
        let e = f.to_json().unwrap_err().to_string();
        assert!(e.contains("l2_hit_rate"), "{e}");
        assert_eq!(Counters::default().dram_ratio(10.0), None);
        let c = Counters {
            dram_bytes_measured: Some(15.0),
            ..Counters::default()
        };
        assert_eq!(c.dram_ratio(10.0), Some(1.5));
        assert_eq!(c.dram_ratio(0.0), None);
    }
}
