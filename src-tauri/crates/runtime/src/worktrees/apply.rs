//! Landing a worktree run, planned: each file the worktree changed since
//! its start goes into the main checkout when the main checkout still
//! holds the start's version, merged three-way (`git merge-file`) when
//! both changed it, and refused by name when they conflict. Nothing is
//! written here: `landing` records the plan's pre-images, then writes it.
//! Nothing is committed; the main checkout's other changes stay as they are.

use super::git;
use super::landing::{FileState, FileWrite};
use crate::local::LocalWorktree;
use crate::AppError;
use bearagent_kernel::WorktreeRefusal;
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// What applying did, file by file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub applied: Vec<String>,
    pub merged: Vec<String>,
    pub refused: Vec<WorktreeRefusal>,
}

/// The report an apply will give, and the files it writes for it.
pub(crate) struct ApplyPlan {
    pub report: ApplyReport,
    pub writes: Vec<FileWrite>,
}

/// The files the worktree changed since its start, repository-relative,
/// each with its mode at the start (tracked edits and deletions, from
/// `git diff --raw`; new files, ignored ones aside, have none).
pub(crate) fn changed_files(wt: &LocalWorktree) -> Result<BTreeMap<String, Option<u32>>, AppError> {
    let git = git::Git::at(Path::new(&wt.path))?;
    let tracked = git.run(&["diff", "--raw", "-z", "--no-renames", &wt.start])?;
    let untracked = git.run(&["ls-files", "-o", "--exclude-standard", "-z"])?;
    let mut files = BTreeMap::new();
    // `:<src mode> <dst mode> <src oid> <dst oid> <status>\0<path>\0`
    let mut fields = tracked.split('\0').filter(|f| !f.is_empty());
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let start_mode = meta
            .trim_start_matches(':')
            .split(' ')
            .next()
            .and_then(|m| u32::from_str_radix(m, 8).ok())
            .filter(|m| *m != 0);
        files.insert(path.to_owned(), start_mode);
    }
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        files.entry(path.to_owned()).or_insert(None);
    }
    Ok(files)
}

/// Plans applying `only` (all changed files when empty) of the worktree to
/// its main checkout. Reads; never writes.
pub(crate) fn plan(wt: &LocalWorktree, only: &[String]) -> Result<ApplyPlan, AppError> {
    let changed = changed_files(wt)?;
    let wanted: Vec<String> = if only.is_empty() {
        changed.keys().cloned().collect()
    } else {
        only.to_vec()
    };
    let mut report = ApplyReport::default();
    let asked: Vec<String> = wanted
        .iter()
        .filter(|p| changed.contains_key(*p) && plain(p))
        .cloned()
        .collect();
    let starts = git::show_many(Path::new(&wt.repo), &wt.start, &asked)?;
    let mut starts: BTreeMap<&String, Option<Vec<u8>>> = asked.iter().zip(starts).collect();
    let mut writes = Vec::new();
    for path in &wanted {
        let Some(start_mode) = changed.get(path) else {
            report
                .refused
                .push(refusal(path, "the worktree did not change it"));
            continue;
        };
        let start = starts.remove(path).flatten();
        match plan_file(wt, path, start, *start_mode)? {
            Outcome::Unchanged => report.applied.push(path.clone()),
            Outcome::Write(write, merged) => {
                if merged {
                    report.merged.push(path.clone());
                } else {
                    report.applied.push(path.clone());
                }
                writes.push(write);
            }
            Outcome::Refused(reason) => report.refused.push(refusal(path, &reason)),
        }
    }
    Ok(ApplyPlan { report, writes })
}

enum Outcome {
    Unchanged,
    /// The file to write, and whether it was merged.
    Write(FileWrite, bool),
    Refused(String),
}

fn plain(path: &str) -> bool {
    Path::new(path)
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
}

fn refusal(path: &str, reason: &str) -> WorktreeRefusal {
    WorktreeRefusal {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

fn plan_file(
    wt: &LocalWorktree,
    path: &str,
    start: Option<Vec<u8>>,
    start_mode: Option<u32>,
) -> Result<Outcome, AppError> {
    if !plain(path) {
        return Ok(Outcome::Refused(
            "not a plain path inside the repository".into(),
        ));
    }
    let main = Path::new(&wt.repo).join(path);
    let theirs_path = Path::new(&wt.path).join(path);
    for p in [&main, &theirs_path] {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(Outcome::Refused("a symbolic link; copy it by hand".into()));
        }
    }
    let ours = FileState::read(&main)?;
    let theirs = FileState::read(&theirs_path)?;
    let mode = |bytes: Vec<u8>| {
        let mode = landed_mode(
            ours.as_ref().map(|o| o.mode),
            theirs.as_ref().map(|t| t.mode),
            start_mode,
        );
        FileState { bytes, mode }
    };
    let write = |after: Option<FileState>, merged| {
        if after == ours {
            return Outcome::Unchanged;
        }
        let write = FileWrite {
            rel: path.to_owned(),
            abs: main.clone(),
            before: ours.clone(),
            after,
        };
        Outcome::Write(write, merged)
    };
    let ours_bytes = ours.as_ref().map(|o| &o.bytes);
    let theirs_bytes = theirs.as_ref().map(|t| t.bytes.clone());
    if ours_bytes == theirs_bytes.as_ref() || ours_bytes == start.as_ref() {
        return Ok(write(theirs_bytes.map(mode), false));
    }
    let (Some(start), Some(ours_bytes), Some(theirs_bytes)) = (start, ours_bytes, theirs_bytes)
    else {
        return Ok(Outcome::Refused(
            "the main checkout changed it since the worktree's start, and one side created or deleted it".into(),
        ));
    };
    match merge(&start, ours_bytes, &theirs_bytes)? {
        Some(merged) => Ok(write(Some(mode(merged)), true)),
        None => Ok(Outcome::Refused(
            "the main checkout changed the same lines since the worktree's start".into(),
        )),
    }
}

/// The mode a landed file gets: the main checkout's own (a new file the
/// umask's), with the exec bit the worktree set or cleared since its start
/// (git's view of a mode change), so a `chmod +x` in the worktree lands.
fn landed_mode(ours: Option<u32>, theirs: Option<u32>, start: Option<u32>) -> u32 {
    let base = ours.unwrap_or_else(bearagent_tools::new_file_mode) & 0o7777;
    let exec = |m: u32| m & 0o111 != 0;
    let Some(theirs) = theirs else {
        return base;
    };
    let changed_exec = start.is_none_or(|s| exec(s) != exec(theirs));
    if !changed_exec {
        base
    } else if exec(theirs) {
        base | ((base & 0o444) >> 2)
    } else {
        base & !0o111
    }
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

#[cfg(test)]
mod tests {
    use super::landed_mode;

    #[test]
    fn the_exec_bit_follows_the_worktree_only_where_it_changed_it() {
        // chmod +x in the worktree lands on the main checkout's 0644.
        assert_eq!(landed_mode(Some(0o644), Some(0o755), Some(0o100644)), 0o755);
        // Unchanged exec bit: the main checkout's own mode stays.
        assert_eq!(landed_mode(Some(0o640), Some(0o644), Some(0o100644)), 0o640);
        assert_eq!(landed_mode(Some(0o755), Some(0o644), Some(0o100644)), 0o755);
        // chmod -x in the worktree clears it.
        assert_eq!(landed_mode(Some(0o755), Some(0o644), Some(0o100755)), 0o644);
        // A new executable file: the umask's mode with exec where readable.
        let new = bearagent_tools::new_file_mode();
        assert_eq!(
            landed_mode(None, Some(0o755), None),
            new | ((new & 0o444) >> 2)
        );
        assert_eq!(landed_mode(None, Some(0o644), None), new);
    }
}
