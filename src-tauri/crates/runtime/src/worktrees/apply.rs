//! Landing a worktree run: each file the worktree changed since its start
//! is written into the main checkout when the main checkout still holds
//! the start's version, merged three-way (`git merge-file`) when both
//! changed it, and refused by name when they conflict. Nothing is
//! committed; the main checkout's other changes stay as they are.

use super::git;
use crate::local::LocalWorktree;
use crate::AppError;
use bearagent_kernel::{Worktree, WorktreeRefusal};
use std::path::{Component, Path};

/// What applying did, file by file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub applied: Vec<String>,
    pub merged: Vec<String>,
    pub refused: Vec<WorktreeRefusal>,
}

/// The files the worktree changed since its start: tracked edits and
/// deletions, and new files (ignored ones aside), repository-relative.
pub(crate) fn changed_files(wt: &LocalWorktree) -> Result<Vec<String>, AppError> {
    let folder = Path::new(&wt.path);
    let tracked = git::run(
        folder,
        &["diff", "--name-only", "-z", "--no-renames", &wt.start],
    )?;
    let untracked = git::run(folder, &["ls-files", "-o", "--exclude-standard", "-z"])?;
    let mut files: Vec<String> = tracked
        .split('\0')
        .chain(untracked.split('\0'))
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// Applies `files` (all changed files when empty) of the worktree to its
/// main checkout.
pub(crate) fn apply(wt: &LocalWorktree, only: &[String]) -> Result<ApplyReport, AppError> {
    let changed = changed_files(wt)?;
    let mut report = ApplyReport::default();
    let wanted: Vec<String> = if only.is_empty() {
        changed.clone()
    } else {
        only.to_vec()
    };
    for path in wanted {
        if !changed.contains(&path) {
            report
                .refused
                .push(refusal(&path, "the worktree did not change it"));
            continue;
        }
        match apply_file(wt, &path)? {
            Outcome::Written => report.applied.push(path),
            Outcome::Merged => report.merged.push(path),
            Outcome::Refused(reason) => report.refused.push(refusal(&path, &reason)),
        }
    }
    Ok(report)
}

enum Outcome {
    Written,
    Merged,
    Refused(String),
}

fn refusal(path: &str, reason: &str) -> WorktreeRefusal {
    WorktreeRefusal {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

fn apply_file(wt: &Worktree, path: &str) -> Result<Outcome, AppError> {
    let rel = Path::new(path);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Ok(Outcome::Refused(
            "not a plain path inside the repository".into(),
        ));
    }
    let main = Path::new(&wt.repo).join(rel);
    let theirs_path = Path::new(&wt.path).join(rel);
    for p in [&main, &theirs_path] {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(Outcome::Refused("a symbolic link; copy it by hand".into()));
        }
    }
    let start = git::show(Path::new(&wt.repo), &wt.start, path)?;
    let ours = read(&main)?;
    let theirs = read(&theirs_path)?;
    if ours == theirs {
        return Ok(Outcome::Written);
    }
    if ours == start {
        write(&main, theirs.as_deref())?;
        return Ok(Outcome::Written);
    }
    let (Some(start), Some(ours), Some(theirs)) = (start, ours, theirs) else {
        return Ok(Outcome::Refused(
            "the main checkout changed it since the worktree's start, and one side created or deleted it".into(),
        ));
    };
    match merge(&start, &ours, &theirs)? {
        Some(merged) => {
            write(&main, Some(&merged))?;
            Ok(Outcome::Merged)
        }
        None => Ok(Outcome::Refused(
            "the main checkout changed the same lines since the worktree's start".into(),
        )),
    }
}

fn read(path: &Path) -> Result<Option<Vec<u8>>, AppError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(AppError::Io {
            path: path.into(),
            source,
        }),
    }
}

/// Writes `bytes` to `path` whole (a temporary file renamed over it), or
/// deletes it for `None`.
#[expect(
    clippy::disallowed_methods,
    reason = "apply's writes into the main checkout (to go through the effect module with issue 50's recorded apply)"
)]
fn write(path: &Path, bytes: Option<&[u8]>) -> Result<(), AppError> {
    let io = |source| AppError::Io {
        path: path.into(),
        source,
    };
    let Some(bytes) = bytes else {
        return std::fs::remove_file(path).map_err(io);
    };
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(parent).map_err(io)?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(io)?;
    if let Ok(meta) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .map_err(io)?;
    }
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// `git merge-file` of the three versions: the merged bytes, or None when
/// they conflict (or are binary).
#[expect(
    clippy::disallowed_methods,
    reason = "the three versions merge-file reads, in a temp folder"
)]
fn merge(start: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Option<Vec<u8>>, AppError> {
    let dir = tempfile::tempdir().map_err(|source| AppError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut names = Vec::new();
    for (name, bytes) in [("ours", ours), ("start", start), ("theirs", theirs)] {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).map_err(|source| AppError::Io {
            path: p.clone(),
            source,
        })?;
        names.push(p.display().to_string());
    }
    let out = git::output(
        dir.path(),
        &["merge-file", "-p", &names[0], &names[1], &names[2]],
    )?;
    Ok(out.status.success().then_some(out.stdout))
}
