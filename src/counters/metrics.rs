//! Which Nsight Compute metrics are collected, and how a profile becomes a record's
//! [`Counters`]: DRAM bytes, the L2 hit rate and FLOPs.

use super::parse::Profile;
use crate::results::Counters;

pub const DRAM_READ: &str = "dram__bytes_read.sum";
pub const DRAM_WRITE: &str = "dram__bytes_write.sum";
pub const L2_HIT: &str = "lts__t_sector_hit_rate.pct";
pub const DURATION: &str = "gpu__time_duration.sum";

/// Math ops in the tensor path. `hmma` is the warp-level mma.sync path (sm_80 and later),
/// `hgmma` the warpgroup wgmma path (sm_90 only); fp16 and bf16 inputs.
pub const TENSOR_OPS: [&str; 4] = [
    "sm__ops_path_tensor_op_hmma_src_fp16.sum",
    "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
    "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
];
/// Thread-level instruction counts of the CUDA-core floating-point math.
pub const FFMA: &str = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
pub const HFMA: &str = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
pub const FADD: &str = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
pub const FMUL: &str = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";

/// FLOPs per count of one tensor-path "op".
///
/// ASSUMPTION (to confirm on the H200): an `sm__ops_path_tensor_*` op is one FLOP, so an
/// m x n x k MMA counts 2mnk. The check is a 4096³ HGEMM, whose model is 2·4096³ =
/// 1.37e11 FLOPs: `flops_measured` within a few % of that confirms it; half of it means an
/// op is an FMA and this factor must be 2.0.
pub const TENSOR_FLOPS_PER_OP: f64 = 1.0;

/// FLOPs = tensor ops x TENSOR_FLOPS_PER_OP + 2·FFMA + FADD + FMUL + 4·HFMA. An FFMA is a
/// multiply and an add (2); HFMA is counted as the packed HFMA2 our fp16 kernels issue (two
/// FMAs, 4 FLOPs), so a scalar HFMA, if any, is counted twice. HADD/HMUL and FP64 are not
/// collected: none of the kernels here does its math in them.
pub const FLOP_TERMS: [(&str, f64); 8] = [
    (TENSOR_OPS[0], TENSOR_FLOPS_PER_OP),
    (TENSOR_OPS[1], TENSOR_FLOPS_PER_OP),
    (TENSOR_OPS[2], TENSOR_FLOPS_PER_OP),
    (TENSOR_OPS[3], TENSOR_FLOPS_PER_OP),
    (FFMA, 2.0),
    (FADD, 1.0),
    (FMUL, 1.0),
    (HFMA, 4.0),
];

/// Every metric `ncu --metrics` is asked for, in order.
pub fn all() -> Vec<&'static str> {
    let mut m = vec![DRAM_READ, DRAM_WRITE, L2_HIT, DURATION];
    m.extend(FLOP_TERMS.iter().map(|(name, _)| *name));
    m
}

/// A record's counters from one profiled launch. Sums run over every kernel of the launch.
/// A field whose metric is missing from the profile is None, never 0; FLOPs need every
/// term's metric. The L2 hit rate of several kernels is their rates weighted by each
/// kernel's GPU time (a rate over sectors would need the sector counts, which are not
/// collected); with one kernel, the usual case, it is that kernel's rate.
pub fn counters_from(p: &Profile) -> Counters {
    let read = p.sum(DRAM_READ);
    let write = p.sum(DRAM_WRITE);
    let flops = FLOP_TERMS
        .iter()
        .map(|(m, per)| p.sum(m).map(|v| v * per))
        .sum::<Option<f64>>();
    Counters {
        dram_bytes_measured: read.zip(write).map(|(r, w)| r + w),
        dram_bytes_read: read,
        dram_bytes_write: write,
        l2_hit_rate: p.weighted_mean(L2_HIT, DURATION),
        flops_measured: flops,
        counters_kernels: Some(p.kernels.len() as u32),
        counters_duration_ms: p.sum(DURATION).map(|ns| ns * 1e-6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::parse::parse;

    #[test]
    fn the_stored_gemv_profile_gives_bytes_and_hit_rate_but_no_flops() {
        let c = counters_from(&parse(include_str!("../../tests/data/ncu_gemv_hot.csv")).unwrap());
        assert_eq!(c.counters_kernels, Some(3));
        assert_eq!(c.dram_bytes_read, Some(3.0 * 33_591_808.0));
        assert_eq!(
            c.dram_bytes_measured,
            Some(3.0 * 33_591_808.0 + 386_816.0 + 482_816.0 + 404_736.0)
        );
        let h = c.l2_hit_rate.unwrap();
        assert!((2.29..=2.32).contains(&h), "{h}");
        assert!((c.counters_duration_ms.unwrap() - 0.034_624).abs() < 1e-12);
        // It was collected with older tensor metrics and without FADD/FMUL: no FLOPs.
        assert_eq!(c.flops_measured, None);
    }

    #[test]
    fn flops_follow_the_formula() {
        let mut header = String::from("\"ID\",\"Kernel Name\"");
        let mut units = String::from("\"\",\"\"");
        let mut row = String::from("\"0\",\"k\"");
        // tensor ops 1000, 2000, 0, 0; FFMA 10, FADD 3, FMUL 4, HFMA 5
        let vals = [1000.0, 2000.0, 0.0, 0.0, 10.0, 3.0, 4.0, 5.0];
        for ((m, _), v) in FLOP_TERMS.iter().zip(vals) {
            header += &format!(",\"{m}\"");
            units += ",\"\"";
            row += &format!(",\"{v}\"");
        }
        let p = parse(&format!("{header}\n{units}\n{row}\n")).unwrap();
        let c = counters_from(&p);
        let want = 3000.0 * TENSOR_FLOPS_PER_OP + 20.0 + 3.0 + 4.0 + 20.0;
        assert_eq!(c.flops_measured, Some(want));
        assert_eq!(c.dram_bytes_measured, None, "no DRAM columns");
        assert_eq!(c.counters_kernels, Some(1));
    }

    #[test]
    fn the_metric_list_is_ncus_argument() {
        let all = all();
        assert_eq!(all.len(), 12);
        assert!(all.iter().all(|m| !m.contains(',') && m.contains("__")));
        assert_eq!(all[0], DRAM_READ);
    }
}
