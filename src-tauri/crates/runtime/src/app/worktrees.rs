//! Runs in managed git worktrees, as use cases: starting or forking a run
//! in a new worktree, applying it to the main checkout (and undoing
//! that), discarding it. Git, the plans and the recorded writes:
//! `crate::worktrees`.

use crate::app::runs::StartRun;
use crate::app::Application;
use crate::local::LocalWorktree;
use crate::worktrees::create::{make_worktree, remove_quietly};
use crate::worktrees::{apply, landing, removal, settle, undo};
use crate::worktrees::{ApplyReport, WorktreeRequest, WorktreeState};
use crate::AppError;
use bearagent_kernel::{EventPayload, RunId, Worktree, WorktreeStep};
use std::path::{Path, PathBuf};
use tracing::instrument;

impl Application {
    /// Starts `start` in a new worktree of the repository `start.workspace`
    /// is the top folder of. The main checkout is only read.
    #[instrument(skip(self, start), fields(goal_len = start.goal.len()))]
    pub fn start_run_in_worktree(
        &self,
        start: StartRun,
        request: WorktreeRequest,
    ) -> Result<RunId, AppError> {
        let repo = self.open_workspace(&start.workspace)?;
        let repo = Path::new(&repo.path);
        self.start_in_new_worktree(start, None, repo, repo, request)
    }

    /// A fork of `thread` in a new worktree: of the parent's worktree (its
    /// HEAD and the files it holds now), or of the parent's workspace's
    /// repository when the parent did not run in one.
    #[instrument(skip(self, start), fields(parent = %thread.run_id))]
    pub fn fork_in_worktree(
        &self,
        start: StartRun,
        thread: crate::ThreadStart,
        mut request: WorktreeRequest,
    ) -> Result<RunId, AppError> {
        let (parent, workspace) = self.thread_parent(&thread)?;
        let local = self.local_run(thread.run_id, "forked in one of its worktrees");
        let (repo, source) = match local.and_then(|run| self.local_worktree(run)) {
            Ok(w) => {
                request.carry_changes = true;
                (w.repo.clone(), w.path.clone())
            }
            Err(_) if self.store.imported(thread.run_id)?.is_some() => {
                // Its recorded folders are another machine's: the fork's
                // worktree is made of the repository the user names.
                let mine = self.open_workspace(&start.workspace)?.path;
                (mine.clone(), mine)
            }
            Err(_) => (workspace.clone(), workspace),
        };
        self.start_in_new_worktree(
            start,
            Some(parent),
            Path::new(&repo),
            Path::new(&source),
            request,
        )
    }

    /// Makes the worktree and creates the run in it; a worktree whose run
    /// could not be created is removed again (it was never recorded).
    fn start_in_new_worktree(
        &self,
        start: StartRun,
        parent: Option<bearagent_kernel::ParentRun>,
        repo: &Path,
        source: &Path,
        request: WorktreeRequest,
    ) -> Result<RunId, AppError> {
        let run_id = RunId::new();
        let worktree = make_worktree(repo, source, run_id, &request, &self.worktrees_dir()?)?;
        let (folder, branch) = (worktree.path.clone(), worktree.branch.clone());
        self.create_run(start, parent, run_id, Some(worktree))
            .inspect_err(|_| remove_quietly(repo, Path::new(&folder), &branch))
    }

    /// Applies the worktree of `run_id` (its thread's) to the main
    /// checkout: `only` those files, or every file it changed. The intent
    /// (a `WorktreeStep` `ApplyStarted`, every pre-image saved) is committed before
    /// the disk changes, `WorktreeApplied` after.
    #[instrument(skip(self, only))]
    pub fn apply_worktree(&self, run_id: RunId, only: &[String]) -> Result<ApplyReport, AppError> {
        let worktree = self.settled_worktree(run_id, "applied")?;
        let plan = apply::plan(&worktree, only)?;
        let intent = self.land(run_id, &worktree, &plan.writes, false, false)?;
        let report = plan.report;
        self.record(run_id).append(
            Some(intent),
            EventPayload::WorktreeApplied {
                applied: report.applied.clone(),
                merged: report.merged.clone(),
                refused: report.refused.clone(),
            },
        )?;
        Ok(report)
    }

    /// Puts the main checkout back as it was before the applies of
    /// `run_id` (since its last undo), byte for byte and mode for mode;
    /// files they created go. Refused, naming them, where the user changed
    /// a file since, unless `force`. The paths put back.
    #[instrument(skip(self))]
    pub fn undo_apply(&self, run_id: RunId, force: bool) -> Result<Vec<String>, AppError> {
        let worktree = self.local_worktree(self.local_run(run_id, "un-applied")?)?;
        let events = self.store.all_events(run_id)?;
        let pending = undo::applied_since_undo(&events);
        if pending.is_empty() {
            return Err(AppError::Conflict(format!(
                "run {run_id} has no apply to undo"
            )));
        }
        let (writes, forced) =
            undo::plan_undo(&self.store, Path::new(&worktree.repo), &pending, force)?;
        let intent = self.land(run_id, &worktree, &writes, true, forced)?;
        let restored: Vec<String> = pending.into_keys().collect();
        let undone = WorktreeStep::ApplyUndone {
            restored: restored.clone(),
        };
        self.record(run_id).step(Some(intent), undone)?;
        Ok(restored)
    }

    /// Records the intent and writes the files; a write that fails is
    /// settled at once (each file checked), then the error returned.
    fn land(
        &self,
        run_id: RunId,
        worktree: &LocalWorktree,
        writes: &[landing::FileWrite],
        undo: bool,
        forced: bool,
    ) -> Result<bearagent_kernel::EventSeq, AppError> {
        let record = self.record(run_id);
        let repo = Path::new(&worktree.repo);
        landing::land(&record, repo, writes, undo, forced).inspect_err(|_| {
            let settled = self
                .store
                .all_events(run_id)
                .map_err(AppError::from)
                .and_then(|events| settle::settle_open(&record, worktree, &events, true));
            if let Err(e) = settled {
                tracing::warn!(%run_id, error = %e, "a failed apply could not be settled");
            }
        })
    }

    fn record(&self, run_id: RunId) -> landing::Record<'_> {
        landing::Record {
            store: &self.store,
            clock: self.clock.as_ref(),
            live: &self.live,
            run_id,
        }
    }

    /// Removes the worktree of `run_id` and its branch, its changes not
    /// applied. Recorded as a `WorktreeStep` `RemovalStarted`
    /// before, `WorktreeRemoved` after.
    #[instrument(skip(self))]
    pub fn discard_worktree(&self, run_id: RunId) -> Result<(), AppError> {
        let worktree = self.settled_worktree(run_id, "discarded")?;
        self.remove_recorded(run_id, &worktree, true)
    }

    /// Removes `worktree` between its intent and its outcome on `run_id`.
    pub(super) fn remove_recorded(
        &self,
        run_id: RunId,
        worktree: &LocalWorktree,
        discarded: bool,
    ) -> Result<(), AppError> {
        removal::remove_recorded(&self.record(run_id), worktree, discarded)
    }

    /// The worktree of `run_id`, refused while a run of it is in progress
    /// or after it was removed.
    fn settled_worktree(&self, run_id: RunId, act: &str) -> Result<LocalWorktree, AppError> {
        let worktree = self.local_worktree(self.local_run(run_id, act)?)?;
        let entry = self
            .worktree_entries(Some(&worktree.path), false)?
            .into_iter()
            .next()
            .ok_or_else(|| AppError::NotFound {
                what: "worktree",
                id: worktree.path.clone(),
            })?;
        match entry.state {
            WorktreeState::Running | WorktreeState::WaitingForApproval => {
                Err(AppError::Conflict(format!(
                    "a run of worktree {} is still in progress; apply or discard it after it ends",
                    worktree.path
                )))
            }
            WorktreeState::Discarded | WorktreeState::Removed => Err(AppError::Conflict(format!(
                "worktree {} was removed already",
                worktree.path
            ))),
            WorktreeState::Missing => Err(AppError::PathMissing {
                path: worktree.path.clone().into(),
            }),
            WorktreeState::ReadyToApply | WorktreeState::Applied => Ok(worktree),
        }
    }

    /// The worktree `run_id` ran in, from its first event.
    pub fn worktree_of(&self, run_id: RunId) -> Result<Worktree, AppError> {
        let first = self.list_events(run_id, bearagent_kernel::EventSeq(0), 1)?;
        match first.first().map(|e| &e.payload) {
            Some(EventPayload::RunCreated {
                worktree: Some(w), ..
            }) => Ok(w.clone()),
            Some(_) => Err(AppError::InvalidInput(format!(
                "run {run_id} did not run in a worktree"
            ))),
            None => Err(AppError::NotFound {
                what: "run",
                id: run_id.to_string(),
            }),
        }
    }

    /// Where new worktrees go: the config's `worktrees_dir`, or
    /// `worktrees` in the data folder.
    pub(crate) fn worktrees_dir(&self) -> Result<PathBuf, AppError> {
        Ok(match self.config()?.worktrees_dir {
            Some(dir) => dir,
            None => self.home().join("worktrees"),
        })
    }
}
