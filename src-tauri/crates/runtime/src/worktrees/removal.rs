//! Removing a worktree's folder and branch, between its intent
//! (`RemovalStarted`) and its outcome (`WorktreeRemoved`). Removal is
//! idempotent, so an intent a crash left open is finished at the next
//! start once the process that recorded it is gone.

use super::git;
use super::landing::Record;
use crate::local::LocalWorktree;
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, EventSeq, WorktreeStep};
use std::path::Path;

/// Records the intent, removes `worktree`, records the outcome.
pub(crate) fn remove_recorded(
    record: &Record,
    worktree: &LocalWorktree,
    discarded: bool,
) -> Result<(), AppError> {
    let owner = record.store.instance();
    let intent = WorktreeStep::RemovalStarted {
        discarded,
        instance: owner.instance.clone(),
        pid: owner.pid,
    };
    let intent = record.step(None, intent)?;
    remove(worktree)?;
    record.append(Some(intent), EventPayload::WorktreeRemoved { discarded })?;
    Ok(())
}

/// Finishes the run's open removal if the process that started it is
/// gone. True when it finished one.
pub(super) fn finish_open(
    record: &Record,
    worktree: &LocalWorktree,
    events: &[EventEnvelope],
) -> Result<bool, AppError> {
    let Some((seq, discarded, instance)) = open_removal(events) else {
        return Ok(false);
    };
    if record.store.instance_alive(&instance) {
        return Ok(false);
    }
    remove(worktree)?;
    tracing::info!(run_id = %record.run_id, "finished an interrupted worktree removal");
    record.append(Some(seq), EventPayload::WorktreeRemoved { discarded })?;
    Ok(true)
}

/// The last removal intent, when no `WorktreeRemoved` follows it.
fn open_removal(events: &[EventEnvelope]) -> Option<(EventSeq, bool, String)> {
    let mut open = None;
    for e in events {
        match &e.payload {
            EventPayload::WorktreeStep {
                step:
                    WorktreeStep::RemovalStarted {
                        discarded,
                        instance,
                        ..
                    },
            } => open = Some((e.seq, *discarded, instance.clone())),
            EventPayload::WorktreeRemoved { .. } => open = None,
            _ => {}
        }
    }
    open
}

/// Removes the worktree's folder (if it is still there) and its branch.
pub(crate) fn remove(wt: &LocalWorktree) -> Result<(), AppError> {
    let repo = Path::new(&wt.repo);
    if Path::new(&wt.path).exists() {
        git::run(repo, &["worktree", "remove", "--force", &wt.path])?;
    } else {
        git::run(repo, &["worktree", "prune"])?;
    }
    // The branch holds no commit of the user's: only BearAgent's own.
    if git::branch_exists(repo, &wt.branch)? {
        git::run(repo, &["branch", "-D", &wt.branch])?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "removal_tests.rs"]
mod tests;
