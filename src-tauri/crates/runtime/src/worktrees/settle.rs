//! After a crash: an apply or undo whose intent has no outcome is settled
//! from the files as they are, like a tool write (run/reconcile.rs) —
//! each file checked against its recorded before and after (content and
//! mode) and the finding recorded. Nothing is re-executed; an undo or a
//! new apply finishes the job. An intent of a live BearAgent process is
//! never touched. A removal left open is finished (`removal.rs`).

use super::landing::{holds, Record};
use crate::local::{LocalRun, LocalWorktree};
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, EventSeq, WorktreeStep};
use std::path::Path;

/// Settles the open applies of every worktree run at start.
pub(crate) fn settle_interrupted(
    store: &bearagent_store::Store,
    clock: &dyn bearagent_kernel::Clock,
    live: &crate::live::LiveBus,
) -> Result<(), AppError> {
    for run_id in store.open_worktree_applies()? {
        let Some((record, wt, events)) = open_run(store, clock, live, run_id)? else {
            continue;
        };
        if let Err(e) = settle_open(&record, &wt, &events, false) {
            tracing::warn!(%run_id, error = %e, "an interrupted worktree apply could not be settled");
        }
    }
    for run_id in store.open_worktree_removals()? {
        let Some((record, wt, events)) = open_run(store, clock, live, run_id)? else {
            continue;
        };
        if let Err(e) = super::removal::finish_open(&record, &wt, &events) {
            tracing::warn!(%run_id, error = %e, "an interrupted worktree removal could not be finished");
        }
    }
    Ok(())
}

/// The record, worktree and events of `run_id`: None for an imported
/// run (another machine's record, never on this disk) or a run in no
/// worktree.
fn open_run<'a>(
    store: &'a bearagent_store::Store,
    clock: &'a dyn bearagent_kernel::Clock,
    live: &'a crate::live::LiveBus,
    run_id: bearagent_kernel::RunId,
) -> Result<Option<(Record<'a>, LocalWorktree, Vec<EventEnvelope>)>, AppError> {
    let Ok(local) = LocalRun::checked(store, run_id, "settled") else {
        return Ok(None);
    };
    let events = store.all_events(run_id)?;
    let Some(EventPayload::RunCreated {
        worktree: Some(w), ..
    }) = events.first().map(|e| e.payload.clone())
    else {
        return Ok(None);
    };
    let record = Record {
        store,
        clock,
        live,
        run_id,
    };
    Ok(Some((record, LocalWorktree::of(local, w), events)))
}

/// Settles the run's last apply or undo intent if it has no outcome (and,
/// unless `own`, its process is gone). True when it settled one.
pub(crate) fn settle_open(
    record: &Record,
    wt: &LocalWorktree,
    events: &[EventEnvelope],
    own: bool,
) -> Result<bool, AppError> {
    let Some((seq, undo, instance, pid, files)) = open_intent(events) else {
        return Ok(false);
    };
    if !own && record.store.instance_alive(&instance) {
        return Ok(false);
    }
    let repo = Path::new(&wt.repo);
    let (mut done, mut not_done, mut neither) = (Vec::new(), Vec::new(), Vec::new());
    for f in files {
        let abs = repo.join(&f.path);
        // A write killed before its rename leaves its temporary file.
        if let (false, Some(dir)) = (own, abs.parent()) {
            bearagent_tools::remove_leftover_temp_files(dir, pid);
        }
        if holds(&abs, &f.after, f.after_mode)? {
            done.push(f.path);
        } else if holds(&abs, &f.before, f.before_mode)? {
            not_done.push(f.path);
        } else {
            neither.push(f.path);
        }
    }
    let settled = WorktreeStep::ApplySettled {
        undo,
        done,
        not_done,
        neither,
    };
    tracing::info!(run_id = %record.run_id, "settled an interrupted worktree apply");
    record.step(Some(seq), settled)?;
    Ok(true)
}

type OpenIntent = (
    EventSeq,
    bool,
    String,
    u32,
    Vec<bearagent_kernel::WorktreeFileChange>,
);

/// The last apply or undo intent, when no outcome follows it.
fn open_intent(events: &[EventEnvelope]) -> Option<OpenIntent> {
    let mut open = None;
    for e in events {
        match &e.payload {
            EventPayload::WorktreeStep {
                step:
                    WorktreeStep::ApplyStarted {
                        undo,
                        instance,
                        pid,
                        files,
                        ..
                    },
            } => open = Some((e.seq, *undo, instance.clone(), *pid, files.clone())),
            EventPayload::WorktreeApplied { .. }
            | EventPayload::WorktreeStep {
                step: WorktreeStep::ApplyUndone { .. } | WorktreeStep::ApplySettled { .. },
            } => open = None,
            _ => {}
        }
    }
    open
}
