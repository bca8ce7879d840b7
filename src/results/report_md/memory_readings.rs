//! The readings of the memory-bound experiments: decode (GEMV) and elementwise.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::results::export::{fmt_pct, fmt_time_ms};
use crate::results::schema::{format_bytes, Record, ResultsFile};

use super::ceilings::launch_floor;
use super::gemm_readings::gemm_nk;
use super::helpers::{dominant, gbs, max_by, pct, tf, value_with_unit, variant_name};

pub(super) fn decode_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(timing) = dominant(recs, |r| r.timing.clone()) else {
        return lines;
    };
    let gemm: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.timing == timing && gemm_nk(&r.shape).is_some())
        .collect();
    let nks: Vec<(u64, u64)> = gemm.iter().filter_map(|r| gemm_nk(&r.shape)).collect();
    let Some(nk) = (if nks.contains(&(4096, 4096)) {
        Some((4096, 4096))
    } else {
        dominant(&gemm, |r| gemm_nk(&r.shape).unwrap_or_default())
    }) else {
        return lines;
    };
    let sel: Vec<&Record> = gemm
        .into_iter()
        .filter(|r| gemm_nk(&r.shape) == Some(nk))
        .collect();
    let ms: BTreeSet<u64> = sel.iter().map(|r| r.shape.primary()).collect();
    let (Some(&m0), Some(&m1)) = (ms.iter().next(), ms.iter().next_back()) else {
        return lines;
    };
    let pick = |impl_: &str, m: u64, cache: &str, f: &dyn Fn(&Record) -> f64| {
        max_by(
            sel.iter()
                .copied()
                .filter(|r| r.impl_ == impl_ && r.shape.primary() == m && r.cache == cache),
            f,
        )
    };
    let hbm = results.ceiling("hbm_copy");
    let l2 = results.ceiling("l2_read");
    let (n, k) = nk;
    let of_hbm = |v: f64| {
        hbm.map_or(String::new(), |h| {
            format!(
                " = {} of HBM copy ({})",
                pct(v, h.value),
                value_with_unit(h)
            )
        })
    };

    for impl_ in ["ours", "cublas"] {
        let cold = pick(impl_, m0, "cold", &|r| r.gbs);
        let hot = pick(impl_, m0, "hot", &|r| r.gbs);
        let Some(any) = cold.or(hot) else { continue };
        let mut s = format!(
            "Decode M={m0} at N={n} K={k} ({timing} timing), {}:",
            variant_name(any)
        );
        if let Some(c) = cold {
            let _ = write!(s, " cold {}{}", gbs(c.gbs), of_hbm(c.gbs));
        }
        if let Some(h) = hot {
            let _ = write!(
                s,
                "{} hot {}",
                if cold.is_some() { ";" } else { "" },
                gbs(h.gbs)
            );
            match hbm {
                Some(hb) if h.gbs > hb.value => {
                    let _ = write!(
                        s,
                        ", {:.2}× HBM copy: more than HBM can deliver, so the {} working set is read from on-chip cache",
                        h.gbs / hb.value,
                        format_bytes(h.bytes)
                    );
                    if let Some(l) = l2 {
                        let _ = write!(
                            s,
                            " ({} of the L2 read ceiling, {})",
                            pct(h.gbs, l.value),
                            value_with_unit(l)
                        );
                    }
                }
                Some(hb) => {
                    let _ = write!(s, " ({} of HBM copy)", pct(h.gbs, hb.value));
                }
                None => {}
            }
        }
        s.push('.');
        lines.push(s);
    }
    if let (Some(o), Some(c)) = (
        pick("ours", m0, "cold", &|r| r.gbs),
        pick("cublas", m0, "cold", &|r| r.gbs),
    ) {
        lines.push(format!(
            "At M={m0}, cold, ours reaches {} of cuBLAS's bandwidth.",
            pct(o.gbs, c.gbs)
        ));
    }
    if m1 != m0 {
        let cache = if sel.iter().any(|r| r.cache == "cold") {
            "cold"
        } else {
            "hot"
        };
        if let Some(o) = pick("ours", m1, cache, &|r| r.tflops) {
            let mut s = format!(
                "At M={m1} ({cache}) ours reaches {} ({}-bound, {} of attainable)",
                tf(o.tflops),
                o.bound,
                fmt_pct(o.pct_attainable)
            );
            if let Some(c) = pick("cublas", m1, cache, &|r| r.tflops) {
                let _ = write!(
                    s,
                    "; cuBLAS {}, so ours is {} of cuBLAS",
                    tf(c.tflops),
                    pct(o.tflops, c.tflops)
                );
            }
            s.push('.');
            lines.push(s);
        }
        // where the bound changes, for our kernel
        let ours: Vec<&Record> = ms
            .iter()
            .filter_map(|&m| pick("ours", m, cache, &|r| r.gbs))
            .collect();
        if let Some(first) = ours.first() {
            if let Some(w) = ours.windows(2).find(|w| w[1].bound != first.bound) {
                lines.push(format!(
                    "Our kernel is {}-bound up to M={} and {}-bound from M={} ({cache}).",
                    first.bound,
                    w[0].shape.primary(),
                    w[1].bound,
                    w[1].shape.primary()
                ));
            }
        }
    }
    lines
}

pub(super) fn elementwise_reading(results: &ResultsFile, recs: &[&Record]) -> Vec<String> {
    let mut lines = Vec::new();
    let hbm = results.ceiling("hbm_copy");
    // One line per kernel, implementation and timing mode: single launches and graph
    // replays tell different stories at small sizes.
    let mut groups: Vec<(String, String, String)> = Vec::new();
    for r in recs {
        let k = (r.kernel.clone(), variant_name(r), r.timing.clone());
        if !groups.contains(&k) {
            groups.push(k);
        }
    }
    for (kernel, impl_name, timing) in groups {
        let of: Vec<&Record> = recs
            .iter()
            .copied()
            .filter(|r| {
                r.kernel == kernel
                    && variant_name(r) == impl_name
                    && r.timing == timing
                    && r.bytes > 0.0
            })
            .collect();
        let cold: Vec<&Record> = of.iter().copied().filter(|r| r.cache == "cold").collect();
        let Some(big) = max_by(cold.iter().copied(), |r| r.bytes) else {
            continue;
        };
        let rel = |v: f64| {
            hbm.map_or(String::new(), |h| {
                format!(" = {} of HBM copy", pct(v, h.value))
            })
        };
        let mut s = format!(
            "{kernel} ({impl_name}, {timing} timing): at {} moved (shape {}), cold {}{}",
            format_bytes(big.bytes),
            big.shape.label(),
            gbs(big.gbs),
            rel(big.gbs)
        );
        if let Some(small) = cold
            .iter()
            .copied()
            .filter(|r| r.bytes < big.bytes)
            .min_by(|a, b| a.bytes.total_cmp(&b.bytes))
        {
            let _ = write!(
                s,
                "; at {} moved, cold {}{}",
                format_bytes(small.bytes),
                gbs(small.gbs),
                rel(small.gbs)
            );
            if let Some(fl) = launch_floor(results, &small.timing) {
                let _ = write!(
                    s,
                    ", {} per call = {:.1}× the {} ({})",
                    fmt_time_ms(small.median_ms),
                    small.median_us() / fl.value,
                    fl.name,
                    value_with_unit(fl)
                );
            }
        }
        if let Some(hb) = hbm {
            let above: Vec<&Record> = of
                .iter()
                .copied()
                .filter(|r| r.cache == "hot" && r.gbs > hb.value)
                .collect();
            match max_by(above.iter().copied(), |r| r.gbs) {
                Some(top) => {
                    let sizes: Vec<String> = above.iter().map(|r| format_bytes(r.bytes)).collect();
                    let _ = write!(
                        s,
                        "; hot, above the HBM roof at {} moved (up to {:.2}× HBM copy at {}: served from L2)",
                        sizes.join(", "),
                        top.gbs / hb.value,
                        format_bytes(top.bytes)
                    );
                }
                None if of.iter().any(|r| r.cache == "hot") => {
                    s.push_str("; hot runs never beat the HBM roof");
                }
                None => {}
            }
        }
        s.push('.');
        lines.push(s);
    }
    lines
}
