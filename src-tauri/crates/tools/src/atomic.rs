//! Atomic file replacement: write a temporary file in the target's directory
//! (name starting `.bearagent-tmp-`), flush it to disk, then rename it over
//! the target. Readers see the old file or the new one, never a mix.

use crate::error::ToolError;
use std::fs;
use std::io::Write;
use std::path::Path;
use tokio_util::sync::CancellationToken;

pub(crate) const TEMP_PREFIX: &str = ".bearagent-tmp-";

/// This process's temporary files: `.bearagent-tmp-<pid>-…`, so that after
/// a crash the next start can remove exactly the dead process's leftovers.
fn temp_prefix_of(pid: u32) -> String {
    format!("{TEMP_PREFIX}{pid}-")
}

/// Removes the temporary files a dead BearAgent process (`pid`) left in
/// `dir` when it was killed between writing and renaming. Returns how many.
pub fn remove_leftover_temp_files(dir: &Path, pid: u32) -> usize {
    let prefix = temp_prefix_of(pid);
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let ours = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix));
        if ours
            && entry.file_type().is_ok_and(|t| t.is_file())
            && fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// The mode a new file gets, as the user's umask gives it (0644 under the
/// usual 022), read from `/proc/self/status` (setting the umask to learn
/// it would race with other threads); 0644 where it cannot be read.
pub fn new_file_mode() -> u32 {
    let umask = fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
    });
    0o666 & !umask.unwrap_or(0o022)
}

/// The permissions `target` is written with: its own when it exists, the
/// umask's for a new file. Err for a folder.
fn permissions_for(target: &Path) -> std::io::Result<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(target) {
        Ok(meta) if meta.is_dir() => Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a folder",
        )),
        Ok(meta) => Ok(meta.permissions()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(fs::Permissions::from_mode(new_file_mode()))
        }
        Err(e) => Err(e),
    }
}

/// Replaces (or creates) `target` with `content` atomically, keeping an
/// existing file's permissions (a new file gets the umask's): what a
/// revert or re-apply puts back. Parent folders are created.
pub fn replace_file(target: &Path, content: &[u8]) -> std::io::Result<()> {
    replace(target, content, true)
}

/// [`replace_file`] without waiting for the disk: still atomic for every
/// reader and across a killed process (the rename is the commit point),
/// for many files followed by one [`sync_filesystem`].
pub fn replace_file_unsynced(target: &Path, content: &[u8]) -> std::io::Result<()> {
    replace(target, content, false)
}

/// [`replace_file`] with the permission bits `mode` instead of the
/// file's own: set on the temporary file before the rename, so content and
/// mode change together (a worktree apply keeps a script's exec bit, an
/// undo puts the old mode back). Unsynced unless `sync`.
pub fn replace_file_with_mode(
    target: &Path,
    content: &[u8],
    mode: u32,
    sync: bool,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    replace_as(
        target,
        content,
        Some(fs::Permissions::from_mode(mode & 0o7777)),
        sync,
    )
}

/// Waits until everything written to the filesystem holding `path` is on
/// disk (`syncfs`): one wait for a batch of unsynced replacements.
pub fn sync_filesystem(path: &Path) -> std::io::Result<()> {
    let handle = fs::File::open(path)?;
    rustix::fs::syncfs(&handle).map_err(std::io::Error::from)
}

fn replace(target: &Path, content: &[u8], sync: bool) -> std::io::Result<()> {
    replace_as(target, content, None, sync)
}

fn replace_as(
    target: &Path,
    content: &[u8],
    permissions: Option<fs::Permissions>,
    sync: bool,
) -> std::io::Result<()> {
    let parent = target.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(parent)?;
    let permissions = match permissions {
        Some(p) => p,
        None => permissions_for(target)?,
    };
    let mut temp = tempfile::Builder::new()
        .prefix(&temp_prefix_of(std::process::id()))
        .tempfile_in(parent)?;
    temp.write_all(content)?;
    temp.as_file().set_permissions(permissions)?;
    if sync {
        temp.as_file().sync_all()?;
    }
    temp.persist(target).map_err(|e| e.error)?;
    if sync {
        sync_dir(parent);
    }
    Ok(())
}

/// Replace (or create) `target` with `content`. Parent directories are
/// created. An existing file keeps its permissions; a new one gets the
/// umask's. `shown` is the
/// workspace-relative path used in error messages. Cancellation is honoured
/// up to the rename, which is the commit point.
pub(crate) fn write_atomic(
    target: &Path,
    shown: &str,
    content: &[u8],
    cancel: &CancellationToken,
) -> Result<(), ToolError> {
    let io = |e: std::io::Error| ToolError::io(shown, &e);
    let parent = target
        .parent()
        .ok_or_else(|| ToolError::bad_call(format!("{shown} has no parent directory")))?;
    fs::create_dir_all(parent).map_err(io)?;
    let permissions = match permissions_for(target) {
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            return Err(ToolError::IsADirectory { path: shown.into() })
        }
        other => other.map_err(io)?,
    };

    let mut temp = tempfile::Builder::new()
        .prefix(&temp_prefix_of(std::process::id()))
        .tempfile_in(parent)
        .map_err(io)?;
    temp.write_all(content).map_err(io)?;
    temp.as_file().set_permissions(permissions).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    if cancel.is_cancelled() {
        // Dropping `temp` removes the temporary file.
        return Err(ToolError::Cancelled);
    }
    temp.persist(target).map_err(|e| io(e.error))?;
    sync_dir(parent);
    Ok(())
}

/// Best effort: make the rename durable.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = fs::File::open(dir) {
        if let Err(err) = handle.sync_all() {
            tracing::debug!(dir = %dir.display(), %err, "could not fsync directory");
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_file_gets_the_mode_the_umask_gives_and_an_existing_one_keeps_its_own() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // What any other program creating a file here would get.
        std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
        let new = dir.path().join("new.txt");
        write_atomic(&new, "new.txt", b"n", &CancellationToken::new()).unwrap();
        assert_eq!(mode(&new), mode(&dir.path().join("plain.txt")));
        assert_eq!(mode(&new), new_file_mode());
        for keep in [0o755, 0o640] {
            let script = dir.path().join(format!("f{keep:o}"));
            fs::write(&script, "old").unwrap();
            fs::set_permissions(&script, fs::Permissions::from_mode(keep)).unwrap();
            write_atomic(&script, "f", b"new", &CancellationToken::new()).unwrap();
            assert_eq!(mode(&script), keep);
            replace_file(&script, b"back").unwrap();
            assert_eq!(
                (mode(&script), fs::read_to_string(&script).unwrap().as_str()),
                (keep, "back")
            );
        }
    }

    #[test]
    fn creates_parents_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a/b/c.txt");
        write_atomic(&target, "a/b/c.txt", b"hello", &CancellationToken::new()).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "hello");
        assert_eq!(entries(&dir.path().join("a/b")), ["c.txt"]);
    }

    #[test]
    fn cancelled_before_commit_leaves_the_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.txt");
        fs::write(&target, "old").unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert_eq!(
            write_atomic(&target, "c.txt", b"new", &cancel),
            Err(ToolError::Cancelled)
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(entries(dir.path()), ["c.txt"]);
    }

    #[test]
    fn refuses_to_replace_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        let err = write_atomic(&dir.path().join("d"), "d", b"x", &CancellationToken::new());
        assert!(matches!(err, Err(ToolError::IsADirectory { .. })));
    }

    #[test]
    fn replace_with_mode_sets_content_and_mode_together() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s/run.sh");
        replace_file_with_mode(&target, b"#!/bin/sh", 0o755, false).unwrap();
        assert_eq!(mode(&target), 0o755);
        replace_file_with_mode(&target, b"x", 0o600, true).unwrap();
        assert_eq!(
            (mode(&target), fs::read(&target).unwrap()),
            (0o600, b"x".to_vec())
        );
        assert_eq!(entries(&dir.path().join("s")), ["run.sh"]);
    }

    #[cfg(unix)]
    #[test]
    fn overwrite_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("run.sh");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&target, "run.sh", b"new", &CancellationToken::new()).unwrap();
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }
}
