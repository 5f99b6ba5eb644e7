//! Imported runs are a different kind of value. A run recorded on another
//! machine (an imported bundle) is data: its paths are shown, never
//! resolved here. Everything that can reach git or the disk for a run —
//! its recorder (review, revert, rewind, resume), its worktree (apply,
//! discard, prune, fork in a worktree) — takes a `LocalRun` or a
//! `LocalWorktree`, which only `Application::local_run` makes, and it
//! refuses an imported run. The mistake does not compile.

use crate::app::Application;
use crate::AppError;
use bearagent_kernel::{RunId, Worktree};

/// A run recorded by this machine's BearAgent (never an imported one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalRun(RunId);

impl LocalRun {
    pub(crate) fn id(self) -> RunId {
        self.0
    }
}

/// The worktree a local run worked in: the only worktree git is run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalWorktree(Worktree);

impl std::ops::Deref for LocalWorktree {
    type Target = Worktree;

    fn deref(&self) -> &Worktree {
        &self.0
    }
}

impl Application {
    /// `run_id` as a local run, or a refusal saying it was imported and
    /// cannot be `act` (e.g. "reverted") here.
    pub(crate) fn local_run(&self, run_id: RunId, act: &str) -> Result<LocalRun, AppError> {
        match self.store.imported(run_id)? {
            Some(imported) => Err(crate::bundle::read_only(run_id, &imported, act)),
            None => Ok(LocalRun(run_id)),
        }
    }

    /// The worktree `run` worked in.
    pub(crate) fn local_worktree(&self, run: LocalRun) -> Result<LocalWorktree, AppError> {
        self.worktree_of(run.id()).map(LocalWorktree)
    }
}
