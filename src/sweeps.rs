//! The article's sweeps as plans of cases: square HGEMM, fusion, decode batch, elementwise.
//! A plan is built (and sized) before anything runs, so progress has a total and a
//! Ctrl-C leaves whole records behind.

use crate::gpu::Gpu;
use crate::kernels::copy::{CopyCase, ReadCase};
use crate::kernels::cublas_gemm::{CublasGemmCase, Dtype};
use crate::kernels::elementwise::{ElementwiseCase, Op};
use crate::kernels::gemm::HgemmCase;
use crate::kernels::gemm_gelu::{GeluImpl, GemmGeluCase};
use crate::kernels::gemv::{GemvCase, GemvImpl};
use crate::kernels::layernorm::LayerNormCase;
use crate::kernels::{elementwise, gemm, gemm_gelu, gemv, layernorm};
use crate::measure::{BenchCase, CacheMode, MeasureConfig, StopRule, TimingMode};
use crate::session::Session;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    Square,
    Fusion,
    Decode,
    Elementwise,
}

impl Sweep {
    pub const ALL: [Sweep; 4] = [
        Sweep::Square,
        Sweep::Fusion,
        Sweep::Decode,
        Sweep::Elementwise,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Sweep::Square => "square",
            Sweep::Fusion => "fusion",
            Sweep::Decode => "decode",
            Sweep::Elementwise => "elementwise",
        }
    }
}

/// One case of a plan, with how to time it and (optionally) the labels its record gets.
pub struct Planned {
    pub experiment: &'static str,
    pub case: Box<dyn BenchCase>,
    pub cfg: MeasureConfig,
    /// (kernel, variant) to record instead of the case's own, e.g. the decode sweep's
    /// large-M points are our HGEMM recorded in the GEMV series.
    pub relabel: Option<(String, String)>,
}

#[derive(Debug, Clone, Copy)]
pub struct SweepOpts {
    pub quick: bool,
    pub verify: bool,
    pub seed: u64,
    pub stop: StopRule,
    pub warmup_ms: f64,
}

impl Default for SweepOpts {
    fn default() -> Self {
        SweepOpts {
            quick: false,
            verify: true,
            seed: 1,
            stop: StopRule {
                min_samples: 10,
                max_samples: 2000,
                min_time_ms: 30.0,
                max_time_ms: 800.0,
                target_noise: 0.01,
            },
            warmup_ms: 10.0,
        }
    }
}

impl SweepOpts {
    fn cfg(&self, cache: CacheMode, timing: TimingMode) -> MeasureConfig {
        MeasureConfig {
            cache,
            timing,
            stop: self.stop,
            warmup_ms: self.warmup_ms,
            ..MeasureConfig::default()
        }
    }
}

fn push(
    plan: &mut Vec<Planned>,
    experiment: &'static str,
    case: impl BenchCase + 'static,
    cfg: MeasureConfig,
) {
    plan.push(Planned {
        experiment,
        case: Box::new(case),
        cfg,
        relabel: None,
    });
}

pub fn plan(sweep: Sweep, o: &SweepOpts) -> Vec<Planned> {
    let cold = o.cfg(CacheMode::Cold, TimingMode::Launch);
    let mut p = Vec::new();
    match sweep {
        Sweep::Square => {
            let best_v = gemm::best();
            let sizes: &[u64] = if o.quick {
                &[256, 1024, 2048, 4096]
            } else {
                &[128, 256, 512, 1024, 2048, 4096, 8192]
            };
            for &n in sizes {
                push(
                    &mut p,
                    "square",
                    HgemmCase::new(n, n, n, best_v, o.seed),
                    cold,
                );
                push(
                    &mut p,
                    "square",
                    CublasGemmCase::new(n, n, n, Dtype::F16, o.seed),
                    cold,
                );
            }
            // The progression v1..vN at the sizes the targets name.
            let prog: &[u64] = if o.quick {
                &[4096]
            } else {
                &[2048, 4096, 8192]
            };
            for &n in prog {
                for (v, _) in gemm::variants().into_iter().filter(|(v, _)| *v != best_v) {
                    push(&mut p, "square", HgemmCase::new(n, n, n, v, o.seed), cold);
                }
            }
        }
        Sweep::Fusion => {
            let fv = gemm_gelu::best();
            let gv = gemm::best();
            let ms: &[u64] = if o.quick {
                &[1, 16, 256, 4096]
            } else {
                &[1, 4, 16, 64, 256, 1024, 4096, 8192]
            };
            let squares: &[u64] = if o.quick {
                &[4096]
            } else {
                &[2048, 4096, 8192]
            };
            let shapes: Vec<(u64, u64, u64)> = ms
                .iter()
                .map(|&m| (m, 4096, 4096))
                .chain(squares.iter().map(|&n| (n, n, n)))
                .collect();
            for (m, n, k) in shapes {
                for imp in [
                    GeluImpl::Fused(fv),
                    GeluImpl::Unfused(gv),
                    GeluImpl::UnfusedCublas,
                    GeluImpl::Cublaslt,
                ] {
                    push(
                        &mut p,
                        "fusion",
                        GemmGeluCase::new(m, n, k, imp, 0, o.seed),
                        cold,
                    );
                }
                push(&mut p, "fusion", HgemmCase::new(m, n, k, gv, o.seed), cold);
            }
        }
        Sweep::Decode => {
            let v_gemv = gemv::best();
            let v_gemm = gemm::best();
            let ms: &[u64] = if o.quick {
                &[1, 4, 16, 64, 256]
            } else {
                &[1, 2, 4, 8, 16, 32, 64, 128, 256]
            };
            for &nk in &[4096u64, 8192] {
                for cache in [CacheMode::Cold, CacheMode::Hot] {
                    let cfg = o.cfg(cache, TimingMode::Launch);
                    // The floor no GEMV can beat: one read of W.
                    push(&mut p, "decode", ReadCase::new(2 * nk * nk, o.seed), cfg);
                    for &m in ms {
                        if m <= 16 {
                            push(
                                &mut p,
                                "decode",
                                GemvCase::new(m, nk, nk, GemvImpl::Ours(v_gemv), o.seed),
                                cfg,
                            );
                        } else {
                            p.push(Planned {
                                experiment: "decode",
                                case: Box::new(HgemmCase::new(m, nk, nk, v_gemm, o.seed)),
                                cfg,
                                relabel: Some(("gemv".into(), format!("hgemm-v{v_gemm}"))),
                            });
                        }
                        push(
                            &mut p,
                            "decode",
                            GemvCase::new(m, nk, nk, GemvImpl::Cublas, o.seed),
                            cfg,
                        );
                    }
                }
                // Back-to-back decode steps: graph timing, cold.
                let g = o.cfg(CacheMode::Cold, TimingMode::Graph);
                push(&mut p, "decode", ReadCase::new(2 * nk * nk, o.seed), g);
                for m in [1u64, 16] {
                    push(
                        &mut p,
                        "decode",
                        GemvCase::new(m, nk, nk, GemvImpl::Ours(v_gemv), o.seed),
                        g,
                    );
                    push(
                        &mut p,
                        "decode",
                        GemvCase::new(m, nk, nk, GemvImpl::Cublas, o.seed),
                        g,
                    );
                }
            }
        }
        Sweep::Elementwise => {
            let ev = elementwise::best();
            let lv = layernorm::best();
            let mibs: &[u64] = if o.quick {
                &[1, 16, 32, 256, 1024]
            } else {
                &[1, 4, 16, 32, 64, 256, 1024]
            };
            let modes: &[(CacheMode, TimingMode)] = &[
                (CacheMode::Cold, TimingMode::Launch),
                (CacheMode::Hot, TimingMode::Launch),
                (CacheMode::Cold, TimingMode::Graph),
                (CacheMode::Hot, TimingMode::Graph),
            ];
            for &mib in mibs {
                let bytes = mib << 20;
                for &(c, t) in modes {
                    let cfg = o.cfg(c, t);
                    push(
                        &mut p,
                        "elementwise",
                        ElementwiseCase::new(Op::Relu, bytes / 2, ev, o.seed),
                        cfg,
                    );
                    push(
                        &mut p,
                        "elementwise",
                        ElementwiseCase::new(Op::Gelu(0), bytes / 2, ev, o.seed),
                        cfg,
                    );
                    push(
                        &mut p,
                        "elementwise",
                        LayerNormCase::new(bytes / 8192, 4096, lv, o.seed),
                        cfg,
                    );
                    push(
                        &mut p,
                        "elementwise",
                        CopyCase::new(bytes, CopyCase::best(), o.seed),
                        cfg,
                    );
                }
            }
        }
    }
    p
}

/// Runs a plan into the session with a progress bar; stops early (keeping records) when
/// interrupted. Returns how many cases ran.
pub fn run(s: &mut Session, plan: Vec<Planned>, verify: bool, title: &str) -> Result<usize> {
    let pb = ProgressBar::new(plan.len() as u64);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix:>12} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
        )
        .expect("static template")
        .progress_chars("=> "),
    );
    pb.set_prefix(title.to_string());
    s.progress = Some(pb.clone());
    let mut done = 0;
    for mut item in plan {
        if s.is_interrupted() {
            eprintln!("interrupted: keeping the records measured so far");
            break;
        }
        pb.set_message(item.case.id().describe());
        s.run(item.case.as_mut(), item.experiment, &item.cfg, verify)?;
        if let (Some((kernel, variant)), Some(last)) = (item.relabel.take(), s.records.last_mut()) {
            last.kernel = kernel;
            last.variant = variant;
        }
        done += 1;
        pb.inc(1);
    }
    pb.finish_and_clear();
    s.progress = None;
    Ok(done)
}

/// Device bytes the largest case of a plan needs at once, for a check before running.
pub fn peak_set_bytes(plan: &[Planned], l2_bytes: u64) -> u64 {
    plan.iter()
        .map(|p| {
            crate::measure::engine::sets_for(&p.cfg, p.case.set_bytes(), l2_bytes) as u64
                * p.case.set_bytes()
        })
        .max()
        .unwrap_or(0)
}

/// Fails before any measuring when the largest case cannot fit in free device memory.
pub fn check_fits(gpu: &Gpu, plan: &[Planned]) -> Result<()> {
    let need = peak_set_bytes(plan, gpu.props().l2_bytes);
    let (free, _) = gpu.mem_info()?;
    if need as f64 > 0.9 * free as f64 {
        return Err(crate::error::LabError::OutOfMemory(format!(
            "this sweep needs {:.1} GiB at once but {:.1} GiB is free; use --quick",
            need as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_the_article_and_quick_is_smaller() {
        for sweep in Sweep::ALL {
            let full = plan(sweep, &SweepOpts::default());
            let quick = plan(
                sweep,
                &SweepOpts {
                    quick: true,
                    ..SweepOpts::default()
                },
            );
            assert!(
                !quick.is_empty() && quick.len() < full.len(),
                "{}",
                sweep.name()
            );
            assert!(full.iter().all(|p| p.experiment == sweep.name()));
        }
    }

    #[test]
    fn decode_plan_has_cold_and_hot_and_the_read_floor() {
        let p = plan(Sweep::Decode, &SweepOpts::default());
        let ids: Vec<String> = p.iter().map(|x| x.case.id().describe()).collect();
        assert!(ids.iter().any(|d| d.starts_with("read")));
        assert!(p.iter().any(|x| x.cfg.cache == CacheMode::Hot));
        assert!(p.iter().any(|x| x.cfg.timing == TimingMode::Graph));
        // batch 256 at 4096^2 goes through the HGEMM, recorded as the GEMV series
        assert!(p
            .iter()
            .any(|x| x.relabel.as_ref().is_some_and(|(k, _)| k == "gemv")));
    }

    #[test]
    fn elementwise_plan_includes_the_layernorm_targets() {
        let p = plan(Sweep::Elementwise, &SweepOpts::default());
        let ids: Vec<String> = p.iter().map(|x| x.case.id().describe()).collect();
        assert!(
            ids.iter()
                .any(|d| d.contains("layernorm") && d.contains("32768x4096")),
            "{ids:?}"
        );
        assert!(ids
            .iter()
            .any(|d| d.contains("layernorm") && d.contains("4096x4096")));
    }
}
