//! Arguments shared by several commands, with validation that runs before the GPU is touched.

use crate::error::usage;
use crate::measure::{CacheMode, MeasureConfig, StopRule, TimingMode};
use crate::results::Format;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Parses "1GiB", "512MiB", "64KiB", "1GB", "1e9", "4096" into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    // The unit is the trailing run of letters ("1e6" has none: its 'e' is an exponent).
    let split = t.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    let (num, unit) = t.split_at(split);
    if num.trim().is_empty() {
        return Err(format!(
            "'{s}' is not a size: write a number with an optional unit, e.g. 1GiB"
        ));
    }
    let mult: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        _ => {
            return Err(format!(
                "'{s}': unknown size unit '{unit}' (use B, KiB, MiB, GiB, KB, MB or GB)"
            ))
        }
    };
    let v: f64 = num.trim().parse().map_err(|_| {
        format!("'{s}' is not a size: write a number with an optional unit, e.g. 1GiB")
    })?;
    let bytes = v * mult;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(format!("'{s}': a size must be at least 1 byte"));
    }
    if bytes > (1u64 << 50) as f64 {
        return Err(format!("'{s}' is far larger than any GPU memory"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{s}' is not a whole number of bytes"));
    }
    Ok(bytes.round() as u64)
}

fn parse_timing(s: &str) -> Result<TimingMode, String> {
    TimingMode::parse(s).ok_or_else(|| format!("'{s}': timing is kernel, launch or graph"))
}

/// Parses a positive dimension (M, N, K, rows, hidden, elems).
pub fn parse_dim(s: &str) -> Result<u64, String> {
    let v: i64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if v < 1 {
        return Err(format!("'{s}': sizes must be at least 1"));
    }
    if v > i32::MAX as i64 {
        return Err(format!(
            "'{s}' is too large: dimensions must fit in 32 bits"
        ));
    }
    Ok(v as u64)
}

#[derive(Args, Debug, Clone)]
pub struct MeasureArgs {
    /// Rotate buffer sets so that L2 holds none of a run's data (default)
    #[arg(long, conflicts_with = "hot")]
    pub cold: bool,
    /// Rerun on one buffer set: data may stay in L2
    #[arg(long)]
    pub hot: bool,
    /// kernel: one cold launch queued behind a blocking kernel, its own GPU time (default);
    /// launch: events around one launch, the host's launch latency included; graph: K
    /// back-to-back launches in a CUDA graph, per launch
    #[arg(long, value_name = "MODE", value_parser = parse_timing, conflicts_with_all = ["graph", "launch"])]
    pub timing: Option<TimingMode>,
    /// Short for --timing graph
    #[arg(long, conflicts_with = "launch")]
    pub graph: bool,
    /// Short for --timing launch
    #[arg(long)]
    pub launch: bool,
    /// Keep every sample, throttled or not, and never rest the GPU: the capped steady-state
    /// figure (labelled "sustained") instead of the unthrottled one
    #[arg(long)]
    pub sustained: bool,
    /// Fewest samples per measurement
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().min_samples)]
    pub min_samples: usize,
    /// Most samples per measurement
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().max_samples)]
    pub max_samples: usize,
    /// Least sampling time per measurement, ms
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().min_time_ms)]
    pub min_time_ms: f64,
    /// Hard cap on sampling time per measurement, ms
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().max_time_ms)]
    pub max_time_ms: f64,
    /// Stop once MAD/median is at most this (0.01 = 1%)
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().target_noise)]
    pub target_noise: f64,
    /// Or stop once the median's relative standard error is at most this (0.002 = 0.2%)
    #[arg(long, allow_negative_numbers = true, default_value_t = StopRule::default().median_precision)]
    pub median_precision: f64,
    /// GPU time to warm up before sampling, ms
    #[arg(long, allow_negative_numbers = true, default_value_t = 25.0)]
    pub warmup_ms: f64,
    /// Time the listed impls/variants interleaved, one sample of each per round in a fresh
    /// random order, so that clock and power drift and the previous kernel reach all of them
    /// alike (their ratios); cold L2 only
    #[arg(long, conflicts_with = "hot")]
    pub interleave: bool,
    /// Skip the correctness check before timing
    #[arg(long)]
    pub no_verify: bool,
    /// Seed for the random inputs
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl MeasureArgs {
    pub fn config(&self) -> Result<MeasureConfig> {
        let stop = StopRule {
            min_samples: self.min_samples,
            max_samples: self.max_samples,
            min_time_ms: self.min_time_ms,
            max_time_ms: self.max_time_ms,
            target_noise: self.target_noise,
            median_precision: self.median_precision,
        };
        stop.validate().map_err(usage)?;
        if !(self.warmup_ms >= 0.0 && self.warmup_ms.is_finite()) {
            return Err(usage("--warmup-ms must be a non-negative number"));
        }
        Ok(MeasureConfig {
            cache: if self.hot {
                CacheMode::Hot
            } else {
                CacheMode::Cold
            },
            timing: self.timing.unwrap_or(if self.graph {
                TimingMode::Graph
            } else if self.launch {
                TimingMode::Launch
            } else {
                TimingMode::Kernel
            }),
            stop,
            warmup_ms: self.warmup_ms,
            sustained: self.sustained,
            ..MeasureConfig::default()
        })
    }
}

#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Print results as JSON
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print results as CSV
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print results as a Markdown table
    #[arg(long)]
    pub markdown: bool,
    /// Write the results to FILE (atomically) instead of stdout
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl OutputArgs {
    pub fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else if self.markdown {
            Format::Markdown
        } else {
            Format::Table
        }
    }

    /// Checks the output folder exists before any measuring starts.
    pub fn validate(&self) -> Result<()> {
        if let Some(p) = &self.out {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(d) = dir {
                if !d.is_dir() {
                    return Err(usage(format!(
                        "--out {}: folder {} does not exist",
                        p.display(),
                        d.display()
                    )));
                }
            }
            if p.is_dir() {
                return Err(usage(format!(
                    "--out {} is a folder: give a file name",
                    p.display()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64k"), Ok(65536));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1e6"), Ok(1_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size(" 2 MiB "), Ok(2 << 20));
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("0").unwrap_err().contains("at least 1 byte"));
        assert!(parse_size("-5MiB").is_err());
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("3XB").unwrap_err().contains("unknown size unit"));
        assert!(parse_size("1e30").is_err());
        assert!(parse_size("1e400").unwrap_err().contains("larger"));
        assert!(parse_size("1.5").unwrap_err().contains("whole number"));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
    }

    #[test]
    fn dims_must_be_positive_32_bit() {
        assert_eq!(parse_dim("4096"), Ok(4096));
        assert!(parse_dim("0").unwrap_err().contains("at least 1"));
        assert!(parse_dim("-3").is_err());
        assert!(parse_dim("1.5").is_err());
        assert!(parse_dim("3000000000").unwrap_err().contains("32 bits"));
    }
}
