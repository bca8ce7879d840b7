//! Atomic file writes: readers see either the old file or the complete new
//! one, never a half-written file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: a temp file in the same directory
/// (so the rename stays on one filesystem), `fsync`, rename over `path`, then
/// `fsync` of the directory where the platform allows it. The directory must
/// exist. On error the temp file is removed and `path` is left as it was.
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let path = path.as_ref();
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a file path: {}", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };

    let (tmp_path, mut file) = create_temp(&dir, &file_name.to_string_lossy())?;
    let result = (|| {
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp_path, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp_path);
        return Err(e);
    }
    sync_dir(&dir);
    Ok(())
}

fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tmp.{pid}.{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Makes the rename durable. Best effort: not every platform or filesystem
/// lets a directory be opened or synced.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        write_atomic(&p, b"first").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"first");
        write_atomic(&p, b"second, longer").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second, longer");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.json")]);
    }

    #[test]
    fn missing_directory_errors_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope").join("out.json");
        assert!(write_atomic(&p, b"x").is_err());
        assert!(!p.exists());
    }

    #[test]
    fn rename_failure_cleans_temp_and_keeps_target() {
        // Target is a non-empty directory: rename over it fails.
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inner"), b"keep").unwrap();
        assert!(write_atomic(&target, b"x").is_err());
        assert_eq!(fs::read(target.join("inner")).unwrap(), b"keep");
        let count = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(count, 1, "temp file left behind");
    }

    #[test]
    fn relative_path_in_current_dir_has_a_parent() {
        // Only checks the parent computation; does not write into the cwd.
        let p = Path::new("results.json");
        assert_eq!(p.parent(), Some(Path::new("")));
        assert!(write_atomic(Path::new("/"), b"x").is_err());
    }
}
