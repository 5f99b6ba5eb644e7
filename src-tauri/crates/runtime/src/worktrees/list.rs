//! The worktrees BearAgent made, as the store records them: each with its
//! runs, its state and its size on disk; and pruning the finished ones. A
//! worktree whose folder disappeared is reported, never made again.

use super::removal::remove;
use crate::app::Application;
use crate::AppError;
use bearagent_kernel::{EventPayload, RunId, RunStatus, Worktree};
use std::path::Path;
use tracing::instrument;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorktreeState {
    Running,
    WaitingForApproval,
    ReadyToApply,
    Applied,
    Discarded,
    /// Removed by a prune after it was applied.
    Removed,
    /// Its folder is gone though BearAgent did not remove it.
    Missing,
}

impl WorktreeState {
    pub fn as_str(self) -> &'static str {
        match self {
            WorktreeState::Running => "running",
            WorktreeState::WaitingForApproval => "waiting for approval",
            WorktreeState::ReadyToApply => "ready to apply",
            WorktreeState::Applied => "applied",
            WorktreeState::Discarded => "discarded",
            WorktreeState::Removed => "removed",
            WorktreeState::Missing => "missing",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeEntry {
    pub worktree: Worktree,
    /// The runs that worked in it, oldest first.
    pub runs: Vec<RunId>,
    pub state: WorktreeState,
    /// Bytes of its files (`.git` aside); 0 once it is gone.
    pub size_bytes: u64,
}

/// What the store says of one worktree so far.
#[derive(Default)]
struct Seen {
    runs: Vec<RunId>,
    running: bool,
    waiting: bool,
    applied: bool,
    removed: Option<bool>,
}

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
            self.note_run(&mut seen[at].1, run_id, &run.status)?;
        }
        seen.reverse();
        Ok(seen.into_iter().map(|(w, s)| entry(w, s, sized)).collect())
    }

    fn note_run(&self, seen: &mut Seen, run_id: RunId, status: &RunStatus) -> Result<(), AppError> {
        seen.runs.push(run_id);
        match status {
            RunStatus::Created | RunStatus::Running => seen.running = true,
            RunStatus::AwaitingApproval => seen.waiting = true,
            RunStatus::Succeeded
            | RunStatus::Failed { .. }
            | RunStatus::Cancelled
            | RunStatus::BudgetExhausted { .. }
            | RunStatus::Interrupted => {}
        }
        for event in self.store.all_events(run_id)? {
            match event.payload {
                // Applied once every file landed; refusals leave it to apply
                // again (or discard).
                EventPayload::WorktreeApplied { refused, .. } => seen.applied = refused.is_empty(),
                EventPayload::WorktreeRemoved { discarded } => seen.removed = Some(discarded),
                EventPayload::WorktreeStep {
                    step: bearagent_kernel::WorktreeStep::ApplyUndone { .. },
                } => seen.applied = false,
                _ => {}
            }
        }
        Ok(())
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

fn entry(worktree: Worktree, seen: Seen, sized: bool) -> WorktreeEntry {
    let exists = Path::new(&worktree.path).is_dir();
    let state = if seen.running {
        WorktreeState::Running
    } else if seen.waiting {
        WorktreeState::WaitingForApproval
    } else if let Some(discarded) = seen.removed {
        if discarded {
            WorktreeState::Discarded
        } else {
            WorktreeState::Removed
        }
    } else if !exists {
        WorktreeState::Missing
    } else if seen.applied {
        WorktreeState::Applied
    } else {
        WorktreeState::ReadyToApply
    };
    let size_bytes = if exists && sized {
        folder_size(Path::new(&worktree.path))
    } else {
        0
    };
    WorktreeEntry {
        worktree,
        runs: seen.runs,
        state,
        size_bytes,
    }
}

/// Bytes of the files under `dir`, not following links, `.git` aside.
fn folder_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name() != ".git")
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}
