//! `roofline report --resume`: the report's checkpoint. After each finished sweep the report
//! writes DIR/partial.json (atomically): the ceilings it placed records on, the sweeps done and
//! their records. A report stopped before its end (Ctrl-C, or `timeout -s INT` under a
//! per-call time limit) continues from there with --resume, on the same GPU and binary only,
//! so that one report never mixes machines or builds.

use crate::results::schema::Record;
use crate::results::write_atomic;
use crate::roofline::MeasuredCeilings;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "partial.json";

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The GPU's UUID (hex): a resumed report runs on the GPU that measured the first part.
    pub gpu_uuid: String,
    /// The binary's commit: a resumed report runs the same kernels.
    pub git_commit: String,
    /// When the first part started (RFC 3339, UTC).
    pub started: String,
    /// The ceilings the records were placed on; the resumed part places on the same ones.
    pub ceilings: MeasuredCeilings,
    /// Sweeps finished, in order.
    pub sweeps_done: Vec<String>,
    pub records: Vec<Record>,
}

pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// The checkpoint in `dir`, if there is one.
pub fn load(dir: &Path) -> Result<Option<Checkpoint>> {
    let path = path_in(dir);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let cp = serde_json::from_slice(&bytes).map_err(|e| {
        crate::error::usage(format!(
            "{} is not a report checkpoint ({e}); delete it to start the report afresh",
            path.display()
        ))
    })?;
    Ok(Some(cp))
}

/// Whether `cp` may be continued by this binary on the GPU `gpu_uuid`; the error says why not
/// and what to do.
pub fn check_resumable(cp: &Checkpoint, gpu_uuid: &str, git_commit: &str) -> Result<()> {
    let redo = "delete it (or run without --resume) to measure the whole report here";
    if cp.gpu_uuid != gpu_uuid {
        return Err(crate::error::usage(format!(
            "{FILE_NAME} was measured on another GPU (UUID {}, this one {gpu_uuid}): a report \
             does not mix machines; {redo}",
            cp.gpu_uuid
        )));
    }
    if cp.git_commit != git_commit {
        return Err(crate::error::usage(format!(
            "{FILE_NAME} was measured by the build of commit {}, this binary is {git_commit}: a \
             report does not mix builds; {redo}",
            cp.git_commit
        )));
    }
    Ok(())
}

pub fn save(dir: &Path, cp: &Checkpoint) -> Result<()> {
    let path = path_in(dir);
    write_atomic(&path, serde_json::to_string(cp)?.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Removes the checkpoint once the report is complete.
pub fn remove(dir: &Path) -> Result<()> {
    match std::fs::remove_file(path_in(dir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path_in(dir).display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> Checkpoint {
        Checkpoint {
            gpu_uuid: "ab12".into(),
            git_commit: "78e0d02e3222".into(),
            started: "2026-12-02T16:00:00Z".into(),
            ceilings: crate::roofline::ceilings::tests::sample(),
            sweeps_done: vec!["square".into()],
            records: Vec::new(),
        }
    }

    #[test]
    fn saves_loads_and_removes() {
        let dir = std::env::temp_dir().join(format!("rl-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(load(&dir).unwrap(), None);
        let cp = checkpoint();
        save(&dir, &cp).unwrap();
        assert_eq!(load(&dir).unwrap(), Some(cp));
        remove(&dir).unwrap();
        assert_eq!(load(&dir).unwrap(), None);
        remove(&dir).unwrap(); // nothing to remove is fine
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_garbled_checkpoint_is_a_usage_error() {
        let dir = std::env::temp_dir().join(format!("rl-resume-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(path_in(&dir), b"{ not json").unwrap();
        let err = load(&dir).unwrap_err();
        assert_eq!(crate::error::exit_code_of(&err), 2, "{err:#}");
        assert!(format!("{err:#}").contains("delete it"), "{err:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resumes_only_on_the_same_gpu_and_build() {
        let cp = checkpoint();
        assert!(check_resumable(&cp, "ab12", "78e0d02e3222").is_ok());
        let other_gpu = check_resumable(&cp, "cd34", "78e0d02e3222").unwrap_err();
        assert!(
            format!("{other_gpu}").contains("another GPU"),
            "{other_gpu}"
        );
        let other_build = check_resumable(&cp, "ab12", "88f6783").unwrap_err();
        assert!(
            format!("{other_build}").contains("commit 78e0d02e3222"),
            "{other_build}"
        );
    }
}
