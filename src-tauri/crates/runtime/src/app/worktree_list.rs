//! The worktrees runs recorded, as the user sees them (each with its runs,
//! state and size), and pruning the finished ones. The state and the
//! folder walk: `crate::worktrees::list`.

use crate::app::Application;
use crate::worktrees::list::{entry, note_run, Seen};
use crate::worktrees::removal::remove;
use crate::worktrees::{WorktreeEntry, WorktreeState};
use crate::AppError;
use bearagent_kernel::Worktree;
use std::path::Path;
use tracing::instrument;

impl Application {
    /// Every worktree a run recorded, newest first.
    #[instrument(skip(self))]
    pub fn worktrees(&self) -> Result<Vec<WorktreeEntry>, AppError> {
        self.worktree_entries(None, true)
    }

    /// The worktrees runs recorded (`only` the one at that path), newest
    /// first; their sizes when `sized` (a walk of each folder).
    pub(super) fn worktree_entries(
        &self,
        only: Option<&str>,
        sized: bool,
    ) -> Result<Vec<WorktreeEntry>, AppError> {
        let mut seen: Vec<(Worktree, Seen)> = Vec::new();
        // The store's index of worktree runs, oldest first: a year of runs
        // without worktrees costs nothing here.
        for run_id in self.store.worktree_runs()? {
            let Some(run) = self.store.get_run(run_id)? else {
                continue;
            };
            // An imported run's worktree is another machine's folder.
            if self.local_run(run_id, "listed").is_err() {
                continue;
            }
            let Ok(worktree) = self.worktree_of(run_id) else {
                continue;
            };
            if only.is_some_and(|path| path != worktree.path) {
                continue;
            }
            let at = match seen.iter().position(|(w, _)| w.path == worktree.path) {
                Some(at) => at,
                None => {
                    seen.push((worktree, Seen::default()));
                    seen.len() - 1
                }
            };
            note_run(&self.store, &mut seen[at].1, run_id, &run.status)?;
        }
        seen.reverse();
        Ok(seen.into_iter().map(|(w, s)| entry(w, s, sized)).collect())
    }

    /// Removes the worktrees whose runs are finished and that were applied
    /// (or discarded but left behind), then lets git forget removed ones.
    /// The worktrees pruned.
    #[instrument(skip(self))]
    pub fn prune_worktrees(&self) -> Result<Vec<WorktreeEntry>, AppError> {
        let mut pruned = Vec::new();
        for entry in self.worktrees()? {
            let leftover = matches!(
                entry.state,
                WorktreeState::Discarded | WorktreeState::Removed
            ) && Path::new(&entry.worktree.path).exists();
            if entry.state != WorktreeState::Applied && !leftover {
                continue;
            }
            let first = entry
                .runs
                .first()
                .copied()
                .ok_or_else(|| AppError::Corrupt("a worktree with no run".into()))?;
            let worktree = self.local_worktree(self.local_run(first, "pruned")?)?;
            if entry.state == WorktreeState::Applied {
                let newest = entry
                    .runs
                    .last()
                    .copied()
                    .ok_or_else(|| AppError::Corrupt("a worktree with no run".into()))?;
                self.remove_recorded(newest, &worktree, false)?;
            } else {
                remove(&worktree)?;
            }
            pruned.push(entry);
        }
        Ok(pruned)
    }
}
