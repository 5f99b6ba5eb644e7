//! The worktrees BearAgent made, as the store records them: each with its
//! runs, its state and its size on disk; and pruning the finished ones. A
//! worktree whose folder disappeared is reported, never made again. The use cases
//! (`Application::worktrees`, `prune_worktrees`) are in
//! `app/worktree_list.rs`.

use crate::AppError;
use bearagent_kernel::{EventPayload, RunId, RunStatus, Worktree};
use bearagent_store::Store;
use std::path::Path;

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
pub(crate) struct Seen {
    runs: Vec<RunId>,
    running: bool,
    waiting: bool,
    applied: bool,
    removed: Option<bool>,
}

/// Notes in `seen` the run `run_id` of a worktree: its status and what
/// its events say of the worktree (applied, undone, removed).
pub(crate) fn note_run(
    store: &Store,
    seen: &mut Seen,
    run_id: RunId,
    status: &RunStatus,
) -> Result<(), AppError> {
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
    for event in store.all_events(run_id)? {
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

pub(crate) fn entry(worktree: Worktree, seen: Seen, sized: bool) -> WorktreeEntry {
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
