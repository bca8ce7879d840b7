//! `roofline report --kernel-file A.cu --kernel-file B.cu ...`: users' kernels in the report,
//! each verified and timed interleaved with our best and the library at its family's
//! default shape (experiment "user"), so a report can show how they compare.

use super::bench::{pick_variants, UserRun};
use crate::dtype::Dtype;
use crate::error::usage;
use crate::measure::timesplit::{self, Part};
use crate::measure::{BenchCase, MeasureConfig};
use crate::registry::{self, BenchRequest, Family, ShapeFlags};
use crate::session::Session;
use crate::user::UserSpec;
use crate::user::{kernel, UserSource};
use anyhow::Result;
use std::path::PathBuf;

/// A file read and matched to its family (the family its launch block names), before the
/// GPU opens.
pub struct Planned {
    source: UserSource,
    family: &'static Family,
}

pub fn plan(files: &[PathBuf]) -> Result<Vec<Planned>> {
    files
        .iter()
        .map(|path| {
            let source = UserSource::load(path, None)?;
            let name = source.family.clone().ok_or_else(|| {
                usage(format!(
                    "{}: the report needs the family in the file's launch block \
                     (`// roofline: family=<name>`)",
                    path.display()
                ))
            })?;
            let family = registry::get(&name, "")?;
            kernel::check_family(&source, family)?;
            Ok(Planned { source, family })
        })
        .collect()
}

/// Runs each file's group: the family's default implementations (best variant) and the
/// user's kernel, verified, then timed interleaved.
pub fn run(s: &mut Session, planned: Vec<Planned>, cfg: &MeasureConfig, seed: u64) -> Result<()> {
    timesplit::timed(Part::Compile, || {
        compile_all(
            &planned,
            &kernel::arch_for(s.gpu.props().compute_capability),
        )
    });
    for p in planned {
        if s.is_interrupted() {
            break;
        }
        let req = BenchRequest {
            shape: p.family.resolve_shape(&ShapeFlags::default())?,
            impls: p.family.resolve_impls(&[])?,
            variants: pick_variants("best", p.family, Dtype::F16)?,
            gelu: 0,
            seed,
            dtype: Dtype::F16,
        };
        let mut cases = (p.family.bench_cases)(&req)?;
        let user = UserRun {
            spec: UserSpec::File(p.source),
            family: p.family,
            shape: req.shape.clone(),
            gelu: 0,
            seed,
        };
        cases.push(user.into_case(&s.gpu)?);
        let mut group: Vec<&mut dyn BenchCase> = cases
            .iter_mut()
            .map(|c| {
                let c: &mut dyn BenchCase = c.as_mut();
                c
            })
            .collect();
        s.run_group(&mut group, "user", cfg, true)?;
    }
    Ok(())
}

/// Compiles every file at once, one thread each, into the compile cache, so the groups below
/// load their CUBINs instead of waiting on NVRTC one after another. A file that fails here
/// fails again, with its message, when its group loads it.
fn compile_all(planned: &[Planned], arch: &str) {
    std::thread::scope(|scope| {
        for p in planned {
            scope.spawn(move || {
                let _ = kernel::compile_checked(&p.source, p.family, arch);
            });
        }
    });
}
