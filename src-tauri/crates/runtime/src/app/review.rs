//! Reviewing a run's files, as use cases: the list with each file's
//! state on disk, its diff, keep, revert, re-apply, reverting some hunks,
//! keeping the user's edit. Every action is guarded by the file's current
//! content and recorded (intent, disk, outcome; settled after a crash).
//! The pieces that need no application: `crate::artifacts` (`revert`,
//! `swap`, `hunks`, `edit`).

use crate::app::Application;
use crate::artifacts::diff::{diff_versions, FileDiff};
use crate::artifacts::edit::edit_text;
use crate::artifacts::hunks::{reverted_text, without_hunks};
use crate::artifacts::projection::{ArtifactRecord, Review, UntrackedEffect};
use crate::artifacts::revert::{
    abandoned, command_dirs, disk_state, open_reviews, prune_empty_dirs, settled_review,
    shown_version, Step, Swap,
};
use crate::artifacts::ArtifactView;
use crate::run::receipts::current_hash;
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{ContentHash, EventPayload, ReviewAction, RunId, RunProjection};
use bearagent_tools::WorkspaceRoot;
use std::path::PathBuf;

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
            let disk = disk_state(&record, &current);
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

    /// Keeps hunks `hunks` (numbered from 1, as `revert_hunks` numbers
    /// them) of the run's change to `path`: a review decision, recorded
    /// with the hunks' text so a follow-up is told; the file is not touched.
    pub fn keep_hunks(&self, run_id: RunId, path: &str, hunks: &[u32]) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        if record.review == Review::Reverted {
            return Err(AppError::Conflict(format!(
                "{path} is reverted: re-apply it first"
            )));
        }
        let text = |hash: &Option<ContentHash>| -> Result<String, AppError> {
            let bytes = self.blob(hash)?.unwrap_or_default();
            String::from_utf8(bytes).map_err(|_| {
                AppError::InvalidInput(format!("{path} is not text: keep the whole file instead"))
            })
        };
        let (before, now) = (text(&record.before)?, text(&record.now)?);
        // The same numbering (and the same refusals) as a revert of them.
        without_hunks(&before, &now, hunks)
            .map_err(|e| AppError::InvalidInput(format!("{path}: {e}")))?;
        let told = reverted_text(&before, &now, hunks);
        let diff: Vec<&str> = told.iter().map(|(_, t)| t.as_str()).collect();
        rec.record(
            rec.last_seq(),
            EventPayload::ArtifactHunksKept {
                path: path.to_owned(),
                hunks: hunks.to_vec(),
                diff: diff.concat(),
            },
        )?;
        Ok(())
    }

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
            let outcome = settled_review(rel, intent, now);
            tracing::info!(run_id = %rec.run_id(), kind = outcome.type_name(), "settled an interrupted review");
            rec.record(rec.last_seq(), outcome)?;
        }
        Ok(())
    }

    /// Reverts hunks `hunks` (numbered from 1) of the run's change to
    /// `path`, if the file still holds what BearAgent last put there (or
    /// with `force`, saving what it holds); the other hunks stay.
    pub fn revert_hunks(
        &self,
        run_id: RunId,
        path: &str,
        hunks: &[u32],
        force: bool,
    ) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        if record.review == Review::Reverted {
            return Err(AppError::Conflict(format!("{path} is already reverted")));
        }
        let text = |hash: &Option<ContentHash>| -> Result<String, AppError> {
            let bytes = self.blob(hash)?.unwrap_or_default();
            String::from_utf8(bytes).map_err(|_| {
                AppError::InvalidInput(format!("{path} is not text: revert the whole file instead"))
            })
        };
        let (before, now) = (text(&record.before)?, text(&record.now)?);
        let content = without_hunks(&before, &now, hunks)
            .map_err(|e| AppError::InvalidInput(format!("{path}: {e}")))?;
        // Every hunk back is the version from before the run (a file the
        // run created goes).
        let target = if content == before {
            record.before.clone()
        } else {
            Some(self.store.put_blob(content.as_bytes(), self.clock.now())?)
        };
        let told = reverted_text(&before, &now, hunks);
        let swap = self.plan_swap(run_id, path, &record.now, &target, force)?;
        Self::apply_swap(
            &mut rec,
            path,
            ReviewAction::RevertHunks.into(),
            &told,
            &target,
            swap,
        )
    }

    /// Writes `content` — the user's edit of the run's version of `path` —
    /// if the file still holds what BearAgent last put there (or with
    /// `force`, saving what it holds), and keeps it.
    #[tracing::instrument(skip(self, content), fields(bytes = content.len()))]
    pub fn keep_edited(
        &self,
        run_id: RunId,
        path: &str,
        content: &str,
        force: bool,
    ) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        let shown = shown_version(&record);
        let base = self.edit_base(run_id, path)?;
        if base == content && shown == &record.now {
            return Err(AppError::InvalidInput(format!(
                "the edit of {path} changes nothing: keep the run's version instead"
            )));
        }
        let target = Some(self.store.put_blob(content.as_bytes(), self.clock.now())?);
        let told = edit_text(&base, content);
        let swap = self.plan_swap(run_id, path, &record.now, &target, force)?;
        Self::apply_swap(
            &mut rec,
            path,
            ReviewAction::Edit.into(),
            &[(0, told)],
            &target,
            swap,
        )
    }
    /// The text the user edits before keeping: the run's version of `path`
    /// as the diff view shows it (what `keep_edited` diffs the edit with).
    #[tracing::instrument(skip(self))]
    pub fn edit_base(&self, run_id: RunId, path: &str) -> Result<String, AppError> {
        let record = self.find_artifact(run_id, path)?;
        let base = self.blob(shown_version(&record))?.unwrap_or_default();
        String::from_utf8(base).map_err(|_| {
            AppError::InvalidInput(format!("{path} is not text: it cannot be edited here"))
        })
    }
}

#[cfg(test)]
#[path = "review_tests.rs"]
pub(crate) mod tests;

#[cfg(test)]
#[path = "review_hunks_tests.rs"]
mod hunks_tests;

#[cfg(test)]
#[path = "review_edit_tests.rs"]
mod edit_tests;
