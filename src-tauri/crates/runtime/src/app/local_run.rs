//! Where the application makes `LocalRun` and `LocalWorktree` (see
//! `crate::local`): from the store's record of which runs were imported.

use crate::app::Application;
use crate::local::{LocalRun, LocalWorktree};
use crate::AppError;
use bearagent_kernel::RunId;

impl Application {
    /// `run_id` as a local run, or a refusal saying it was imported and
    /// cannot be `act` (e.g. "reverted") here.
    pub(crate) fn local_run(&self, run_id: RunId, act: &str) -> Result<LocalRun, AppError> {
        LocalRun::checked(&self.store, run_id, act)
    }

    /// The worktree `run` worked in.
    pub(crate) fn local_worktree(&self, run: LocalRun) -> Result<LocalWorktree, AppError> {
        Ok(LocalWorktree::of(run, self.worktree_of(run.id())?))
    }
}
