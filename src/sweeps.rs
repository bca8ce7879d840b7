//! The article's sweeps as plans of cases: square HGEMM, LLM projection GEMMs, fusion, decode
//! batch, elementwise.
//! A plan is built (and sized) before anything runs, so progress has a total and a
//! Ctrl-C leaves whole records behind.

use crate::gpu::Gpu;
use crate::kernels::copy::ReadCase;
use crate::kernels::cublas_gemm::{CublasGemmCase, Dtype};
use crate::kernels::gemm::{hgemm_case, HgemmCase};
use crate::kernels::gemm_gelu::{GeluImpl, GemmGeluCase};
use crate::kernels::gemv::{GemvCase, GemvImpl};
use crate::kernels::{gemm, gemm_gelu, gemv};
use crate::measure::{BenchCase, CacheMode, MeasureConfig, StopRule, TimingMode};
use crate::session::Session;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    Square,
    Llm,
    Fusion,
    Decode,
    Elementwise,
}

impl Sweep {
    pub const ALL: [Sweep; 5] = [
        Sweep::Square,
        Sweep::Llm,
        Sweep::Fusion,
        Sweep::Decode,
        Sweep::Elementwise,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Sweep::Square => "square",
            Sweep::Llm => "llm",
            Sweep::Fusion => "fusion",
            Sweep::Decode => "decode",
            Sweep::Elementwise => "elementwise",
        }
    }

    /// Whether `--dtype bf16` applies: the sweeps of ours against cuBLAS alone (square, llm).
    /// Fusion's unfused pair, the GEMV and the elementwise kernels are fp16 only.
    pub fn takes(&self, dtype: Dtype) -> bool {
        dtype == Dtype::F16 || matches!(self, Sweep::Square | Sweep::Llm)
    }
}

/// The square sweep's bf16 pairs beside its fp16 series: the large squares, where the targets
/// are set (issue 42) and where ours runs v14's kernel in both dtypes.
pub fn square_bf16_sizes(quick: bool) -> &'static [u64] {
    if quick {
        &[4096]
    } else {
        &[2048, 4096, 8192]
    }
}

/// The LLM sweep's M (tokens per call: prefill chunks and large batches).
pub const LLM_MS: [u64; 4] = [256, 1024, 4096, 8192];
/// The LLM sweep's weights (N, K): the attention and MLP projections of 7-8B models (Llama-2
/// 7B's 4096 and 11008 both ways, Llama-3 8B's and Mistral 7B's 14336).
pub const LLM_NKS: [(u64, u64); 4] = [(4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096)];

/// The LLM sweep's shapes (M, N, K), weights outer, M inner; `--quick`: M 1024 and 8192 at
/// the smallest and the largest weights.
pub fn llm_shapes(quick: bool) -> Vec<(u64, u64, u64)> {
    let keep_m = |m: &u64| !quick || [1024, 8192].contains(m);
    let keep_nk = |nk: &(u64, u64)| !quick || [(4096, 4096), (14336, 4096)].contains(nk);
    LLM_NKS
        .iter()
        .filter(|nk| keep_nk(nk))
        .flat_map(|&(n, k)| LLM_MS.iter().filter(|m| keep_m(m)).map(move |&m| (m, n, k)))
        .collect()
}

/// One case of a plan, with how to time it and (optionally) the labels its record gets.
pub struct Planned {
    pub experiment: &'static str,
    pub case: Box<dyn BenchCase>,
    pub cfg: MeasureConfig,
    /// (kernel, variant) to record instead of the case's own, e.g. the decode sweep's
    /// large-M points are our HGEMM recorded in the GEMV series.
    pub relabel: Option<(String, String)>,
    /// Consecutive cases with the same non-zero group are compared with each other and timed
    /// interleaved (Session::run_group); 0: timed alone.
    pub group: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct SweepOpts {
    pub quick: bool,
    pub verify: bool,
    pub seed: u64,
    pub stop: StopRule,
    pub warmup_ms: f64,
    /// fp16 (the default: the square sweep adds its bf16 pairs), or bf16 for the sweeps that
    /// take it (`Sweep::takes`): every pair in bf16.
    pub dtype: Dtype,
}

impl Default for SweepOpts {
    fn default() -> Self {
        SweepOpts {
            quick: false,
            verify: true,
            seed: 1,
            // Unthrottled kernel-mode samples are quiet (~0.1-1% MAD), so a sweep needs few:
            // at least 5 and 20 ms, at most 300 ms of sampling per case (a slow early variant
            // of the ladder then costs 5 launches, not seconds).
            stop: StopRule {
                min_samples: 5,
                max_samples: 2000,
                min_time_ms: 20.0,
                max_time_ms: 300.0,
                target_noise: 0.01,
                median_precision: 0.002,
            },
            warmup_ms: 10.0,
            dtype: Dtype::F16,
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
        group: 0,
    });
}

/// Makes the cases pushed since `from` one comparison group (a new, unused number).
fn group_from(plan: &mut [Planned], from: usize) {
    let g = plan.iter().map(|p| p.group).max().unwrap_or(0) + 1;
    for p in &mut plan[from..] {
        p.group = g;
    }
}

/// Our HGEMM `v` and cuBLAS at one shape in `dtype`, timed interleaved as one group: samples
/// the power cap slows are left out (measure::sampling), so the pair is compared at the same,
/// unthrottled clocks, whichever of them draws more power.
#[allow(clippy::too_many_arguments)]
fn push_pair_with_cublas(
    plan: &mut Vec<Planned>,
    experiment: &'static str,
    (m, n, k): (u64, u64, u64),
    v: u32,
    seed: u64,
    cfg: MeasureConfig,
    dtype: Dtype,
) {
    let from = plan.len();
    plan.push(Planned {
        experiment,
        case: hgemm_case(m, n, k, v, seed, dtype),
        cfg,
        relabel: None,
        group: 0,
    });
    let cublas = CublasGemmCase::new(m, n, k, dtype, seed);
    push(plan, experiment, cublas, cfg);
    group_from(plan, from);
}

pub fn plan(sweep: Sweep, o: &SweepOpts) -> Vec<Planned> {
    let cold = o.cfg(CacheMode::Cold, TimingMode::Kernel);
    let mut p = Vec::new();
    match sweep {
        Sweep::Square => {
            let best_v = gemm::best_in(o.dtype);
            let sizes: &[u64] = if o.quick {
                &[256, 1024, 2048, 4096]
            } else {
                &[128, 256, 512, 1024, 2048, 4096, 8192]
            };
            for &n in sizes {
                push_pair_with_cublas(&mut p, "square", (n, n, n), best_v, o.seed, cold, o.dtype);
            }
            // fp16: then the bf16 pairs at the large squares (best in bf16 against cuBLAS in
            // bf16), each its own group; with --dtype bf16 every pair above is one already.
            let best_bf16 = gemm::best_in(Dtype::Bf16);
            if o.dtype == Dtype::F16 && gemm::takes_bf16(best_bf16) {
                for &n in square_bf16_sizes(o.quick) {
                    let (shape, bf16) = ((n, n, n), Dtype::Bf16);
                    push_pair_with_cublas(&mut p, "square", shape, best_bf16, o.seed, cold, bf16);
                }
            }
            // The progression v1..vN, each alone, at 4096^3 (the size the targets name; the
            // full report adds 2048^3, where small grids show): fp16 only, where every step has
            // a form.
            let prog: &[u64] = match (o.dtype, o.quick) {
                (Dtype::Bf16, _) => &[],
                (Dtype::F16, true) => &[4096],
                (Dtype::F16, false) => &[2048, 4096],
            };
            for &n in prog {
                for (v, _) in gemm::variants().into_iter().filter(|(v, _)| *v != best_v) {
                    push(&mut p, "square", HgemmCase::new(n, n, n, v, o.seed), cold);
                }
            }
        }
        Sweep::Llm => {
            // Ours, whatever "best" is, and cuBLAS at each shape, in the sweep's dtype.
            let best_v = gemm::best_in(o.dtype);
            for shape in llm_shapes(o.quick) {
                push_pair_with_cublas(&mut p, "llm", shape, best_v, o.seed, cold, o.dtype);
            }
        }
        Sweep::Fusion => {
            let fv = gemm_gelu::best();
            // The plain GEMM and the unfused pair run the fused variant's plain twin.
            let gv = gemm_gelu::plain_variant(fv);
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
                // Our three kernels (same main loop) are compared interleaved; the library
                // pair in a group of its own, so that the clock drops their much higher power
                // draw causes under the power cap do not land on our kernels' samples.
                let from = p.len();
                for imp in [GeluImpl::Fused(fv), GeluImpl::Unfused(gv)] {
                    push(
                        &mut p,
                        "fusion",
                        GemmGeluCase::new(m, n, k, imp, 0, o.seed),
                        cold,
                    );
                }
                push(&mut p, "fusion", HgemmCase::new(m, n, k, gv, o.seed), cold);
                group_from(&mut p, from);
                let from = p.len();
                for imp in [GeluImpl::UnfusedCublas, GeluImpl::Cublaslt] {
                    push(
                        &mut p,
                        "fusion",
                        GemmGeluCase::new(m, n, k, imp, 0, o.seed),
                        cold,
                    );
                }
                group_from(&mut p, from);
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
            // --quick: 4096² only (the size the GEMV targets name).
            let nks: &[u64] = if o.quick { &[4096] } else { &[4096, 8192] };
            for &nk in nks {
                for cache in [CacheMode::Cold, CacheMode::Hot] {
                    let cfg = o.cfg(cache, TimingMode::Kernel);
                    // The floor no GEMV can beat: one read of W. Cold, it is timed interleaved
                    // with the GEMVs (ours and cuBLAS, M <= 16) that the targets compare with
                    // it, so that drifts of the GPU between cases (clocks, HBM temperature)
                    // cannot bend their ratios; hot L2 cannot be interleaved.
                    let from = p.len();
                    push(&mut p, "decode", ReadCase::new(2 * nk * nk, o.seed), cfg);
                    for &m in ms.iter().filter(|&&m| m <= 16) {
                        push(
                            &mut p,
                            "decode",
                            GemvCase::new(m, nk, nk, GemvImpl::Ours(v_gemv), o.seed),
                            cfg,
                        );
                        push(
                            &mut p,
                            "decode",
                            GemvCase::new(m, nk, nk, GemvImpl::Cublas, o.seed),
                            cfg,
                        );
                    }
                    if cache == CacheMode::Cold {
                        group_from(&mut p, from);
                    }
                    // Larger batches run our HGEMM, recorded in the GEMV series; timed alone.
                    for &m in ms.iter().filter(|&&m| m > 16) {
                        p.push(Planned {
                            experiment: "decode",
                            case: Box::new(HgemmCase::new(m, nk, nk, v_gemm, o.seed)),
                            cfg,
                            relabel: Some(("gemv".into(), format!("hgemm-v{v_gemm}"))),
                            group: 0,
                        });
                        push(
                            &mut p,
                            "decode",
                            GemvCase::new(m, nk, nk, GemvImpl::Cublas, o.seed),
                            cfg,
                        );
                    }
                }
                // Back-to-back decode steps: graph timing, cold, interleaved with the read.
                let g = o.cfg(CacheMode::Cold, TimingMode::Graph);
                let from = p.len();
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
                group_from(&mut p, from);
            }
        }
        Sweep::Elementwise => {
            let mibs: &[u64] = if o.quick {
                &[1, 16, 256]
            } else {
                &[1, 4, 16, 32, 64, 256, 1024]
            };
            let modes: &[(CacheMode, TimingMode)] = &[
                (CacheMode::Cold, TimingMode::Kernel),
                (CacheMode::Hot, TimingMode::Kernel),
                (CacheMode::Cold, TimingMode::Graph),
                (CacheMode::Hot, TimingMode::Graph),
            ];
            // Every registered family that joins this sweep, at each data size (the size of
            // its main input: x for the row-wise kernels, at hidden 4096).
            let points: Vec<_> = crate::registry::ALL
                .iter()
                .filter_map(|f| f.elementwise_point)
                .collect();
            for &mib in mibs {
                let bytes = mib << 20;
                for &(c, t) in modes {
                    let cfg = o.cfg(c, t);
                    for point in &points {
                        p.push(Planned {
                            experiment: "elementwise",
                            case: point(bytes, o.seed),
                            cfg,
                            relabel: None,
                            group: 0,
                        });
                    }
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
    let mut rest = plan.into_iter().peekable();
    while let Some(first) = rest.next() {
        if s.is_interrupted() {
            eprintln!("interrupted: keeping the records measured so far");
            break;
        }
        let mut items = vec![first];
        while items[0].group != 0 && rest.peek().is_some_and(|n| n.group == items[0].group) {
            items.push(rest.next().expect("peeked"));
        }
        let names: Vec<String> = items.iter().map(|i| i.case.id().describe()).collect();
        pb.set_message(names.join(" | "));
        let (experiment, cfg) = (items[0].experiment, items[0].cfg);
        let relabels: Vec<_> = items.iter_mut().map(|i| i.relabel.take()).collect();
        let mut cases: Vec<&mut dyn BenchCase> = items
            .iter_mut()
            .map(|i| {
                let c: &mut dyn BenchCase = i.case.as_mut();
                c
            })
            .collect();
        let n = cases.len();
        s.run_group(&mut cases, experiment, &cfg, verify)?;
        // Relabels apply to this group's records, the last n.
        let first_rec = s.records.len() - n;
        for (relabel, rec) in relabels.into_iter().zip(&mut s.records[first_rec..]) {
            if let Some((kernel, variant)) = relabel {
                rec.kernel = kernel;
                rec.variant = variant;
            }
        }
        done += n;
        pb.inc(n as u64);
    }
    pb.finish_and_clear();
    s.progress = None;
    Ok(done)
}

/// Device bytes the largest case (or comparison group, whose cases are all allocated at
/// once) of a plan needs, for a check before running.
pub fn peak_set_bytes(plan: &[Planned], l2_bytes: u64) -> u64 {
    let bytes = |p: &Planned| {
        crate::measure::engine::sets_for(&p.cfg, p.case.set_bytes(), l2_bytes) as u64
            * p.case.set_bytes()
    };
    let mut peak = 0;
    let mut i = 0;
    while i < plan.len() {
        let mut j = i + 1;
        while plan[i].group != 0 && j < plan.len() && plan[j].group == plan[i].group {
            j += 1;
        }
        peak = peak.max(plan[i..j].iter().map(bytes).sum());
        i = j;
    }
    peak
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
    use crate::results::schema::Shape;

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
    fn decode_times_the_read_interleaved_with_the_small_batches_when_cold() {
        let p = plan(Sweep::Decode, &SweepOpts::default());
        let mut cold_groups = 0;
        for (i, x) in p.iter().enumerate() {
            let d = x.case.id().describe();
            if !d.starts_with("read") {
                continue;
            }
            let members: Vec<&Planned> = p[i..]
                .iter()
                .take_while(|y| x.group != 0 && y.group == x.group)
                .collect();
            if x.cfg.cache == CacheMode::Hot {
                assert_eq!(x.group, 0, "hot L2 cannot be interleaved: {d}");
                continue;
            }
            cold_groups += 1;
            // the read, then ours and cuBLAS at every batch it is compared with
            let batches = if x.cfg.timing == TimingMode::Graph {
                2
            } else {
                5
            };
            assert_eq!(members.len(), 1 + 2 * batches, "{d}");
            assert!(members[1..].iter().all(|y| {
                let id = y.case.id();
                id.kernel == "gemv" && matches!(id.shape, Shape::Gemm { m, .. } if m <= 16)
            }));
            assert!(members.iter().all(|y| y.cfg.cache == CacheMode::Cold));
        }
        // launch and graph timing, at 4096^2 and 8192^2
        assert_eq!(cold_groups, 4);
        // the HGEMM points of the series stay alone
        assert!(p
            .iter()
            .filter(|x| x.relabel.is_some())
            .all(|x| x.group == 0));
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

    #[test]
    fn fusion_groups_our_three_kernels_and_the_library_pair() {
        let p = plan(Sweep::Fusion, &SweepOpts::default());
        let mut groups: Vec<(u32, Vec<String>)> = Vec::new();
        for x in &p {
            assert_ne!(x.group, 0, "every fusion case is compared within its shape");
            let impl_ = x.case.id().impl_;
            match groups.last_mut() {
                Some((g, v)) if *g == x.group => v.push(impl_),
                _ => groups.push((x.group, vec![impl_])),
            }
        }
        assert_eq!(groups.len() % 2, 0);
        for pair in groups.chunks(2) {
            assert_eq!(
                pair[0].1,
                ["ours", "unfused", "ours"],
                "fused, unfused, plain"
            );
            assert_eq!(pair[1].1, ["unfused_cublas", "cublaslt"]);
            assert_ne!(pair[0].0, pair[1].0);
        }
        // The elementwise sweep times each case alone (decode: see below).
        assert!(plan(Sweep::Elementwise, &SweepOpts::default())
            .iter()
            .all(|x| x.group == 0));
    }

    #[test]
    fn square_pairs_ours_with_cublas_in_kernel_timing() {
        let p = plan(Sweep::Square, &SweepOpts::default());
        assert!(p
            .iter()
            .all(|x| x.cfg.timing == TimingMode::Kernel && !x.cfg.sustained));
        // ours and cuBLAS share a group at each size (7 fp16 pairs, then 3 bf16 pairs); the
        // progression runs alone
        for pair in p.chunks(2).take(10) {
            assert!(pair[0].group != 0 && pair[0].group == pair[1].group);
            assert_eq!(pair[1].case.id().impl_, "cublas");
            assert_eq!(pair[0].case.id().dtype, pair[1].case.id().dtype);
        }
        assert!(p[20..].iter().all(|x| x.group == 0));
        // ours (best) and cuBLAS at every size, every other variant at 4096^3, in fp16
        let best = format!("v{}", gemm::best());
        let at = |label: &str, dtype: &str| -> Vec<String> {
            p.iter()
                .map(|x| x.case.id())
                .filter(|id| id.shape.label() == label && id.dtype == dtype)
                .map(|id| format!("{} {}", id.impl_, id.variant))
                .collect()
        };
        for size in [128u64, 256, 512, 1024, 2048, 4096, 8192] {
            let ids = at(&format!("{size}x{size}x{size}"), "fp16");
            assert!(ids.iter().any(|d| d.ends_with(&best)), "{size}: ours");
            assert!(
                ids.iter().any(|d| d.starts_with("cublas")),
                "{size}: cuBLAS"
            );
        }
        assert_eq!(
            at("4096x4096x4096", "fp16").len(),
            gemm::variants().len() + 1
        );
        assert_eq!(at("8192x8192x8192", "fp16").len(), 2);
    }

    /// The square sweep's bf16 pairs: ours (best, v14: its bf16 form) against cuBLAS in bf16 at
    /// 2048-8192 (4096 in --quick), each pair one interleaved group of its own.
    #[test]
    fn square_adds_bf16_pairs_at_the_large_squares() {
        for quick in [false, true] {
            let p = plan(
                Sweep::Square,
                &SweepOpts {
                    quick,
                    ..SweepOpts::default()
                },
            );
            let bf: Vec<&Planned> = p.iter().filter(|x| x.case.id().dtype == "bf16").collect();
            let sizes = square_bf16_sizes(quick);
            assert_eq!(bf.len(), 2 * sizes.len(), "quick {quick}");
            let best = format!("v{}", gemm::best());
            for (pair, &n) in bf.chunks(2).zip(sizes) {
                let (ours, lib) = (pair[0].case.id(), pair[1].case.id());
                assert_eq!(
                    (ours.impl_.as_str(), ours.variant.as_str()),
                    ("ours", best.as_str())
                );
                assert_eq!(lib.impl_, "cublas");
                assert_eq!(ours.shape, Shape::Gemm { m: n, n, k: n });
                assert!(lib.shape == ours.shape && pair[0].group == pair[1].group);
                assert!(!p
                    .iter()
                    .any(|x| x.group == pair[0].group && x.case.id().dtype == "fp16"));
            }
        }
        assert_eq!(square_bf16_sizes(false), [2048, 4096, 8192]);
        assert_eq!(square_bf16_sizes(true), [4096]);
    }

    /// --dtype bf16: the square and llm sweeps in bf16 (every pair; no progression, whose
    /// steps have no bf16 form); the others refuse it (cli/sweep.rs).
    #[test]
    fn bf16_sweeps_run_every_pair_in_bf16() {
        let o = SweepOpts {
            dtype: Dtype::Bf16,
            ..SweepOpts::default()
        };
        for sweep in [Sweep::Square, Sweep::Llm] {
            assert!(sweep.takes(Dtype::Bf16));
            let p = plan(sweep, &o);
            assert!(!p.is_empty() && p.len().is_multiple_of(2));
            assert!(p
                .iter()
                .all(|x| x.case.id().dtype == "bf16" && x.group != 0));
        }
        assert_eq!(plan(Sweep::Square, &o).len(), 14);
        assert_eq!(plan(Sweep::Llm, &o).len(), 2 * llm_shapes(false).len());
        for sweep in [Sweep::Fusion, Sweep::Decode, Sweep::Elementwise] {
            assert!(!sweep.takes(Dtype::Bf16) && sweep.takes(Dtype::F16));
        }
    }

    #[test]
    fn llm_pairs_ours_best_with_cublas_at_the_sixteen_shapes() {
        let full = llm_shapes(false);
        assert_eq!(full.len(), 16);
        for m in LLM_MS {
            for (n, k) in LLM_NKS {
                assert!(full.contains(&(m, n, k)), "{m}x{n}x{k}");
            }
        }
        let p = plan(Sweep::Llm, &SweepOpts::default());
        assert_eq!(p.len(), 2 * full.len());
        let best = format!("v{}", gemm::best());
        for (pair, &(m, n, k)) in p.chunks(2).zip(&full) {
            let (ours, lib) = (pair[0].case.id(), pair[1].case.id());
            // one interleaved group per shape, no other case in it
            assert!(pair[0].group != 0 && pair[0].group == pair[1].group);
            assert_eq!(
                (
                    ours.kernel.as_str(),
                    ours.impl_.as_str(),
                    ours.variant.as_str()
                ),
                ("hgemm", "ours", best.as_str())
            );
            assert_eq!(
                (lib.kernel.as_str(), lib.impl_.as_str()),
                ("hgemm", "cublas")
            );
            let want = Shape::Gemm { m, n, k };
            assert!(ours.shape == want && lib.shape == want, "{}", want.label());
            assert!(ours.dtype == "fp16" && lib.dtype == "fp16");
        }
        let groups: std::collections::BTreeSet<u32> = p.iter().map(|x| x.group).collect();
        assert_eq!(groups.len(), full.len());
        // cold L2, kernel timing, the unthrottled figure, recorded as they are
        assert!(p.iter().all(|x| x.experiment == "llm"
            && x.cfg.cache == CacheMode::Cold
            && x.cfg.timing == TimingMode::Kernel
            && !x.cfg.sustained
            && x.relabel.is_none()));
    }

    #[test]
    fn llm_quick_runs_two_m_at_two_weights() {
        assert_eq!(
            llm_shapes(true),
            [
                (1024, 4096, 4096),
                (8192, 4096, 4096),
                (1024, 14336, 4096),
                (8192, 14336, 4096)
            ]
        );
        let quick = plan(
            Sweep::Llm,
            &SweepOpts {
                quick: true,
                ..SweepOpts::default()
            },
        );
        let labels: Vec<(String, String)> = quick
            .iter()
            .map(|x| (x.case.id().impl_, x.case.id().shape.label()))
            .collect();
        for (m, n, k) in llm_shapes(true) {
            for imp in ["ours", "cublas"] {
                let want = (imp.to_string(), format!("{m}x{n}x{k}"));
                assert!(labels.contains(&want), "{want:?}");
            }
        }
        assert_eq!(quick.len(), 8);
        // the largest pair fits an H200 many times over (both cases' buffer sets at once)
        assert!(peak_set_bytes(&quick, 60 << 20) < 4 << 30);
    }

    #[test]
    fn peak_bytes_count_a_group_at_once() {
        let p = plan(Sweep::Fusion, &SweepOpts::default());
        let l2 = 60 << 20;
        let one = |x: &Planned| {
            crate::measure::engine::sets_for(&x.cfg, x.case.set_bytes(), l2) as u64
                * x.case.set_bytes()
        };
        let largest_case = p.iter().map(one).max().unwrap();
        let first_group: u64 = p
            .iter()
            .take_while(|x| x.group == p[0].group)
            .map(one)
            .sum();
        let peak = peak_set_bytes(&p, l2);
        assert!(peak > largest_case && peak >= first_group);
    }
}
