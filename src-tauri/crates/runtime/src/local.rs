//! Imported runs are a different kind of value. A run recorded on another
//! machine (an imported bundle) is data: its paths are shown, never
//! resolved here. Everything that can reach git or the disk for a run —
//! its recorder (review, revert, rewind, resume), its worktree (apply,
//! discard, prune, fork in a worktree) — takes a `LocalRun` or a
//! `LocalWorktree`, which only `LocalRun::checked` makes (through
//! `Application::local_run`), and it refuses an imported run. The mistake
//! does not compile.

use crate::AppError;
use bearagent_kernel::{RunId, Worktree};
use bearagent_store::Store;

/// A run recorded by this machine's BearAgent (never an imported one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalRun(RunId);

impl LocalRun {
    /// `run_id` as a local run, or a refusal saying it was imported and
    /// cannot be `act` (e.g. "reverted") here.
    pub(crate) fn checked(store: &Store, run_id: RunId, act: &str) -> Result<Self, AppError> {
        match store.imported(run_id)? {
            Some(imported) => Err(read_only(run_id, &imported, act)),
            None => Ok(Self(run_id)),
        }
    }

    pub(crate) fn id(self) -> RunId {
        self.0
    }
}

/// The worktree a local run worked in: the only worktree git is run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalWorktree(Worktree);

impl LocalWorktree {
    /// `worktree` as recorded by the local run `_of`.
    pub(crate) fn of(_of: LocalRun, worktree: Worktree) -> Self {
        Self(worktree)
    }
}

impl std::ops::Deref for LocalWorktree {
    type Target = Worktree;

    fn deref(&self) -> &Worktree {
        &self.0
    }
}

/// Refusal of an act on an imported run: it is a record of another
/// machine, read-only here.
pub(crate) fn read_only(
    run_id: bearagent_kernel::RunId,
    imported: &bearagent_store::Imported,
    act: &str,
) -> crate::AppError {
    crate::AppError::Conflict(format!(
        "run {run_id} was imported from {} and is read-only here: it cannot be {act}; \
         fork it (`run --fork {run_id} --at SEQ --workspace DIR`) to go on from it in a workspace of yours",
        imported.source
    ))
}
