//! Keep, revert and re-apply one file of a run, without git. Every action
//! is guarded by the file's current content and recorded as an event —
//! the intent before the disk changes, the outcome after, settled from the
//! file if the process stopped between the two; a revert saves what it
//! replaces, so it can always be undone.

use crate::app::Application;
use crate::artifacts::diff::{diff_versions, FileDiff};
use crate::artifacts::projection::{ArtifactRecord, Review, UntrackedEffect};
pub(crate) use crate::artifacts::swap::{abandoned, ReviewDone, Step, Swap};
use crate::run::receipts::current_hash;
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{
    ContentHash, EventEnvelope, EventPayload, FileEffect, ReviewAction, RunId, RunProjection,
};
use bearagent_tools::WorkspaceRoot;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How a file on disk relates to the run's version of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskState {
    /// Holds exactly what the run left.
    RunVersion,
    /// Holds what was there before the run (after a revert).
    BeforeVersion,
    /// Holds what the user's review left: the run's change minus the
    /// hunks they reverted.
    ReviewedVersion,
    /// Changed by someone else since.
    ChangedSince,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactView {
    pub record: ArtifactRecord,
    pub disk: DiskState,
    pub current: Option<ContentHash>,
    pub before_bytes: u64,
    pub after_bytes: u64,
    /// Lines added and removed (None for binary files).
    pub lines: Option<(u32, u32)>,
}

impl Application {
    fn artifact_context(
        &self,
        run_id: RunId,
    ) -> Result<(RunProjection, WorkspaceRoot, Vec<ArtifactRecord>), AppError> {
        let run = self.get_run(run_id)?;
        // An imported run's paths name another machine's folders: shown,
        // never resolved here.
        self.local_run(run_id, "compared with files on this machine")?;
        let root = self.tool_root(&run.workspace_path)?;
        let records = self.artifact_cache.records(&self.store, run_id)?;
        Ok((run, root, records))
    }

    /// The run's workspace folder.
    pub(crate) fn workspace_root(&self, run_id: RunId) -> Result<WorkspaceRoot, AppError> {
        Ok(self.artifact_context(run_id)?.1)
    }

    fn disk_path(root: &WorkspaceRoot, rel: &str) -> Result<PathBuf, AppError> {
        root.resolve_for_write(rel)
            .map_err(|e| AppError::InvalidInput(format!("{rel}: {e}")))
    }

    /// What the run's commands changed that BearAgent did not keep (build
    /// output, dependencies, files past the safety net's limits), in run
    /// order: none of it can be restored.
    pub fn untracked_effects(&self, run_id: RunId) -> Result<Vec<UntrackedEffect>, AppError> {
        self.get_run(run_id)?;
        self.artifact_cache.untracked(&self.store, run_id)
    }

    /// The files a run created, changed or deleted, with their state on disk.
    pub fn artifacts(&self, run_id: RunId) -> Result<Vec<ArtifactView>, AppError> {
        let (_, root, records) = self.artifact_context(run_id)?;
        let mut out = Vec::new();
        for record in records {
            let path = Self::disk_path(&root, &record.path)?;
            let current = current_hash(&path)
                .map_err(|source| AppError::Io {
                    path: path.clone(),
                    source,
                })?
                .map(|(h, _)| h);
            let disk = if current == record.after {
                DiskState::RunVersion
            } else if current == record.before {
                DiskState::BeforeVersion
            } else if current == record.now {
                DiskState::ReviewedVersion
            } else {
                DiskState::ChangedSince
            };
            let shown = shown_version(&record);
            let stats = self.artifact_cache.stats(&record.before, shown, || {
                Ok((self.blob(&record.before)?, self.blob(shown)?))
            })?;
            out.push(ArtifactView {
                before_bytes: stats.before_bytes,
                after_bytes: stats.after_bytes,
                lines: stats.lines,
                record,
                disk,
                current,
            });
        }
        Ok(out)
    }

    pub(crate) fn blob(&self, hash: &Option<ContentHash>) -> Result<Option<Vec<u8>>, AppError> {
        match hash {
            None => Ok(None),
            Some(h) => self
                .store
                .get_blob(h)?
                .map(Some)
                .ok_or_else(|| AppError::Corrupt(format!("blob {h} is missing"))),
        }
    }

    /// The diff of the run's change to one file (before its first write →
    /// after its last, or what the user's review kept of it). Large files
    /// give stats unless `full`.
    pub fn artifact_diff(
        &self,
        run_id: RunId,
        path: &str,
        full: bool,
    ) -> Result<FileDiff, AppError> {
        let record = self.find_artifact(run_id, path)?;
        let before = self.blob(&record.before)?;
        let after = self.blob(shown_version(&record))?;
        Ok(diff_versions(before.as_deref(), after.as_deref(), full))
    }

    pub(crate) fn find_artifact(
        &self,
        run_id: RunId,
        path: &str,
    ) -> Result<ArtifactRecord, AppError> {
        self.get_run(run_id)?;
        let records = self.artifact_cache.records(&self.store, run_id)?;
        records
            .into_iter()
            .find(|r| r.path == path)
            .ok_or_else(|| AppError::NotFound {
                what: "artifact",
                id: format!("{run_id}:{path}"),
            })
    }

    pub(crate) fn settled_recorder(&self, run_id: RunId) -> Result<Recorder, AppError> {
        if self.active_runs().contains(&run_id) {
            return Err(AppError::Conflict(
                "the run is still in progress; review its files when it has ended".into(),
            ));
        }
        let local = self.local_run(run_id, "reviewed, reverted or rewound")?;
        let events = self.store.all_events(run_id)?;
        let mut rec = self.recorder_for(local, events)?;
        self.settle_reviews(&mut rec)?;
        Ok(rec)
    }

    /// Checks the file still holds `expected` (or that the user forces
    /// it), saves what it holds, and reads the version to put back.
    /// Nothing on disk changes here.
    pub(crate) fn plan_swap(
        &self,
        run_id: RunId,
        rel: &str,
        expected: &Option<ContentHash>,
        target: &Option<ContentHash>,
        force: bool,
    ) -> Result<Swap, AppError> {
        let (_, root, _) = self.artifact_context(run_id)?;
        let path = Self::disk_path(&root, rel)?;
        let now = current_hash(&path).map_err(|source| AppError::Io {
            path: path.clone(),
            source,
        })?;
        let current = now.as_ref().map(|(h, _)| h.clone());
        let forced = current != *expected;
        if forced && !force {
            return Err(AppError::Conflict(format!(
                "{rel} changed since the run wrote it; nothing was touched (revert anyway to replace it — its current content is kept so this can be undone)"
            )));
        }
        let replaced = match now {
            Some((_, bytes)) => Some(self.store.put_blob(&bytes, self.clock.now())?),
            None => None,
        };
        Ok(Swap::new(path, self.blob(target)?, replaced, forced))
    }

    /// Records the intent, changes the file, records the outcome — the
    /// same order as every tool write. `told`: what the outcome tells a
    /// follow-up — the reverted hunks (numbered) and their text, or an
    /// edit's diff (numbered 0). A failed write is recorded as
    /// abandoned (the file is replaced atomically, so it still holds what
    /// it held) and reported.
    pub(crate) fn apply_swap(
        rec: &mut Recorder,
        rel: &str,
        step: Step,
        told: &[(u32, String)],
        restored: &Option<ContentHash>,
        swap: Swap,
    ) -> Result<(), AppError> {
        rec.record(rec.last_seq(), swap.intent(rel, step, told, restored))?;
        if let Err(e) = swap.put() {
            rec.record(rec.last_seq(), abandoned(rel, e.to_string()))?;
            return Err(e);
        }
        let removes = swap.removes();
        let path = swap.path().to_path_buf();
        rec.record(rec.last_seq(), swap.done(rel, step, told, restored))?;
        if removes {
            prune_empty_dirs(&path, rel, &command_dirs(rec.events(), step.action));
        }
        Ok(())
    }

    /// Restores the version from before the run (or removes a file the run
    /// created) if the file still holds the run's version; with `force`,
    /// even if it does not, after saving its current content.
    pub fn revert_artifact(&self, run_id: RunId, path: &str, force: bool) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        if record.review == Review::Reverted {
            return Err(AppError::Conflict(format!("{path} is already reverted")));
        }
        let swap = self
            .plan_swap(run_id, path, &record.now, &record.before, force)?
            .with_mode(record.before_mode);
        Self::apply_swap(
            &mut rec,
            path,
            Step::from(ReviewAction::Revert),
            &[],
            &record.before,
            swap,
        )
    }

    /// Undoes a revert (of the file or some hunks): the run's version
    /// comes back, if the file still holds what the revert left (or with
    /// `force`, saving what it holds).
    pub fn reapply_artifact(&self, run_id: RunId, path: &str, force: bool) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        if !matches!(record.review, Review::Reverted | Review::Partial) {
            return Err(AppError::Conflict(format!("{path} is not reverted")));
        }
        let swap = self
            .plan_swap(run_id, path, &record.now, &record.after, force)?
            .with_mode(record.after_mode);
        Self::apply_swap(
            &mut rec,
            path,
            Step::from(ReviewAction::Reapply),
            &[],
            &record.after,
            swap,
        )
    }

    /// Marks the run's version of a file as reviewed and kept.
    pub fn keep_artifact(&self, run_id: RunId, path: &str) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        self.find_artifact(run_id, path)?;
        rec.record(
            rec.last_seq(),
            EventPayload::ArtifactKept {
                path: path.to_owned(),
            },
        )?;
        Ok(())
    }
}

/// The version of a file the review shows against the one from before
/// the run: the run's (also once reverted, so it can be re-applied), or
/// what the user kept of it.
fn shown_version(record: &ArtifactRecord) -> &Option<ContentHash> {
    match record.review {
        Review::Reverted => &record.after,
        Review::Pending | Review::Kept | Review::Partial => &record.now,
    }
}

/// The folders the run's commands made (for a revert) or removed (for a
/// re-apply): the ones a review may remove again once they are empty.
pub(crate) fn command_dirs(events: &[EventEnvelope], action: ReviewAction) -> BTreeSet<String> {
    let mut dirs = BTreeSet::new();
    for e in events {
        if let EventPayload::CommandFinished {
            created_dirs,
            removed_dirs,
            ..
        } = &e.payload
        {
            dirs.extend(match action {
                // A rewind removes what it leaves empty of either kind
                // only when the commands made it; what they removed stays.
                ReviewAction::Revert
                | ReviewAction::RevertHunks
                | ReviewAction::Rewind
                | ReviewAction::Edit => created_dirs.iter().cloned(),
                ReviewAction::Reapply | ReviewAction::Redo => removed_dirs.iter().cloned(),
            });
        }
    }
    dirs
}

/// After removing the file at `path` (`rel` in the workspace), removes
/// the folders above it that are empty and are, or lie below, one of
/// `dirs` (the topmost folders a command made or removed), deepest
/// first. A folder that is not empty (or not removable) stops it: an
/// empty folder left behind is untidy, never wrong, so that is not an
/// error.
pub(crate) fn prune_empty_dirs(path: &Path, rel: &str, dirs: &BTreeSet<String>) {
    let within = |dir: &str| {
        dirs.iter().any(|top| {
            dir.strip_prefix(top.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    };
    let mut abs = path.to_path_buf();
    let mut rel = rel;
    while let Some((parent, _)) = rel.rsplit_once('/') {
        abs.pop();
        if !within(parent) || std::fs::remove_dir(&abs).is_err() {
            break;
        }
        rel = parent;
    }
}

/// Review intents with no outcome (the process stopped between the two),
/// by path: what the outcome would record.
fn open_reviews(events: &[EventEnvelope]) -> BTreeMap<String, ReviewDone> {
    let mut open = BTreeMap::new();
    for e in events {
        match &e.payload {
            EventPayload::ReviewIntended {
                path,
                action,
                restored_hash,
                replaced_hash,
                forced,
                hunks,
                rewound_to,
            } => {
                let intent = ReviewDone {
                    action: *action,
                    rewound_to: *rewound_to,
                    hunks: hunks.clone(),
                    diff: String::new(),
                    restored: restored_hash.clone(),
                    replaced: replaced_hash.clone(),
                    forced: *forced,
                };
                open.insert(path.clone(), intent);
            }
            EventPayload::ReviewAbandoned { path, .. } => {
                open.remove(path);
            }
            _ => {
                if let Some(
                    FileEffect::Reverted { path }
                    | FileEffect::Reapplied { path }
                    | FileEffect::HunksReverted { path, .. }
                    | FileEffect::Rewound { path, .. }
                    | FileEffect::Edited { path, .. },
                ) = e.payload.file_effect()
                {
                    open.remove(path);
                }
            }
        }
    }
    open
}

impl Application {
    /// Settles a review the process stopped in the middle of, from the
    /// file as it is (like a tool write after a crash): it holds the
    /// version put back → the action took effect; what it replaced → it
    /// did not; neither → nothing is assumed and the review stays as it was.
    fn settle_reviews(&self, rec: &mut Recorder) -> Result<(), AppError> {
        let open = open_reviews(rec.events());
        if open.is_empty() {
            return Ok(());
        }
        let (_, root, _) = self.artifact_context(rec.run_id())?;
        for (rel, intent) in open {
            let path = Self::disk_path(&root, &rel)?;
            let now = current_hash(&path)
                .map_err(|source| AppError::Io {
                    path: path.clone(),
                    source,
                })?
                .map(|(h, _)| h);
            let outcome = if now == intent.restored {
                intent.event(&rel)
            } else {
                let reason = if now == intent.replaced {
                    "BearAgent stopped before the file was written; it holds what it held"
                } else {
                    "BearAgent stopped during this change and the file holds neither version; nothing is assumed"
                };
                EventPayload::ReviewAbandoned {
                    path: rel,
                    reason: reason.to_owned(),
                }
            };
            tracing::info!(run_id = %rec.run_id(), kind = outcome.type_name(), "settled an interrupted review");
            rec.record(rec.last_seq(), outcome)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "revert_tests.rs"]
pub(crate) mod tests;
