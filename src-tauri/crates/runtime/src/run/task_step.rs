//! The `task` tool's room (delegation, issue 54): a child run is started
//! for the call, with a budget carved from what this run has left, and
//! its report becomes the call's result once the turn's calls have all
//! been walked — so several `task` calls of one turn run at the same
//! time. Results are recorded in call order, whatever order the children
//! end in, so a replay (which starts no child and reads each child's
//! record instead) appends the same events. Floor 2 of `run/`.

use super::child_report::{report, ChildReport};
use super::deps::{ChildSpec, LoopDeps, PendingTask, RunGrants};
use super::outcome::{fail, result, ToolStepEnd};
use super::recorder::Recorder;
use super::requested::StartAfter;
use crate::AppError;
use bearagent_kernel::{Budgets, CallId, DelegatedBy, Delegation, EventPayload, Spent};
use bearagent_tools::AuthorizedCall;

/// The most of a child's report the parent's model gets (its record
/// keeps everything).
const MAX_REPORT_BYTES: usize = 32 * 1024;

/// Whether this run may delegate, and how deep it is (0: top level).
fn delegation_of(rec: &Recorder) -> (Option<Delegation>, u32) {
    match rec.events().first().map(|e| &e.payload) {
        Some(EventPayload::RunCreated {
            delegation,
            delegated_by,
            ..
        }) => (*delegation, delegated_by.as_ref().map_or(0, |d| d.depth)),
        _ => (None, 0),
    }
}

/// The depth and budget of a child this run may start now, or why it
/// may not (depth at the limit, nothing left to carve).
fn admit(rec: &Recorder, deps: &LoopDeps) -> Result<Result<(u32, Budgets), String>, AppError> {
    let (delegation, depth) = delegation_of(rec);
    let Some(delegation) = delegation.filter(|d| d.allows_child_at(depth)) else {
        return Ok(Err(format!(
            "this run may not start helpers (it is at depth {depth}, the limit)"
        )));
    };
    let now = rec.clock().now();
    let Some((own, budgets)) = rec.state().map(|s| (s.spent(now), s.budgets)) else {
        return Err(AppError::Corrupt(
            "a task call before the run exists".into(),
        ));
    };
    let carved = match deps.ledger.lock() {
        Ok(ledger) => ledger.carve(&budgets, own, &delegation),
        Err(_) => return Err(AppError::Corrupt("the delegation ledger's lock".into())),
    };
    Ok(carved
        .map(|b| (depth + 1, b))
        .ok_or_else(|| "no budget left for a helper: finish the work yourself".to_owned()))
}

/// Starts the call's child (or, in a replay, notes it): depth and budget
/// are checked first, the call's start is committed before the child
/// exists, and the child's budget is reserved until it ends.
pub(super) fn start_task(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    call_id: CallId,
    authorized: &AuthorizedCall,
    mut after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    let args = authorized.prepared().args();
    let text = |k: &str| {
        args.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned()
    };
    let (depth, budgets) = match admit(rec, deps)? {
        Ok(admitted) => admitted,
        Err(why) => {
            let cause = after.seq(rec)?;
            return fail(rec, cause, &call_id, why);
        }
    };
    let spec = ChildSpec {
        run_id: DelegatedBy::child_run_id(rec.run_id(), &call_id),
        call_id,
        description: text("description"),
        prompt: text("prompt"),
        budgets,
        depth,
        cancel: deps.cancel.child_token(),
        write: args.get("write").and_then(|v| v.as_bool()).unwrap_or(false),
    };
    let started = after.record_start(rec, &spec.call_id)?;
    let pending = PendingTask {
        call_id: spec.call_id.clone(),
        description: spec.description.clone(),
        cancel: spec.cancel.clone(),
        started,
        child_id: spec.run_id,
        budgets,
        running: None,
    };
    let running = match (rec.tape().is_some(), &deps.children) {
        (true, _) => match replayed_start_failure(rec, &pending)? {
            Some(why) => return fail(rec, started, &pending.call_id, why),
            None => None,
        },
        (false, Some(children)) => match children.start(deps, rec, spec) {
            Ok(running) => Some(running),
            Err(e) => {
                let why = format!("the helper could not start: {e}");
                return fail(rec, started, &pending.call_id, why);
            }
        },
        (false, None) => {
            let why = "helpers are not available here".to_owned();
            return fail(rec, started, &pending.call_id, why);
        }
    };
    if let Ok(mut ledger) = deps.ledger.lock() {
        ledger.reserve(&budgets);
    }
    grants.tasks.push(PendingTask { running, ..pending });
    Ok(ToolStepEnd::Continue)
}

/// In a replay: the failure recorded when the child could not start (it
/// has no run then), recorded again at the same place — the child's own
/// record is what a replay reads otherwise, and there is none.
fn replayed_start_failure(rec: &Recorder, task: &PendingTask) -> Result<Option<String>, AppError> {
    if rec.store().get_run(task.child_id)?.is_some() {
        return Ok(None);
    }
    let next = rec.tape().and_then(|t| t.ahead().first());
    Ok(next.and_then(|e| match &e.payload {
        EventPayload::ToolCallFailed { result } if result.call_id == task.call_id => {
            Some(result.content.clone())
        }
        _ => None,
    }))
}

/// The ledger of a run resumed in this process: what its children spent
/// before (see [`super::ledger::of_earlier_children`]).
pub(crate) fn resumed_ledger(rec: &Recorder) -> Result<super::ledger::Ledger, AppError> {
    let store = rec.store();
    super::ledger::of_earlier_children(rec.run_id(), rec.events(), |child| {
        Ok::<_, AppError>(store.get_run(child)?.map(|p| Spent {
            elapsed_ms: 0,
            ..p.spent(p.updated_at)
        }))
    })
}

/// Waits for the turn's children and records each one's report as its
/// call's result, in call order. Cancelling the run cancels the children
/// (their tokens are the run's children), so this returns promptly then.
pub(crate) async fn finish_tasks(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
) -> Result<(), AppError> {
    for mut task in std::mem::take(&mut grants.tasks) {
        if let Some(running) = task.running.take() {
            match running.done.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, child = %running.run_id, "a helper's loop stopped")
                }
                Err(e) => {
                    tracing::warn!(error = %e, child = %running.run_id, "a helper's task failed")
                }
            }
        }
        let child = child_report(rec, &task)?;
        if let Ok(mut ledger) = deps.ledger.lock() {
            ledger.settle(&task.budgets, child.spent);
        }
        let succeeded = child.succeeded;
        record_result(rec, &task, child)?;
        // Like any call that succeeded: the PostToolUse hooks see the
        // helper's report (its room returned before there was one).
        if let Some(call) = succeeded
            .then(|| requested_call(rec, &task.call_id))
            .flatten()
        {
            super::hook_step::post_tool_use(rec, deps, grants, &call).await?;
        }
    }
    Ok(())
}

/// The call as this run requested it.
fn requested_call(rec: &Recorder, call_id: &CallId) -> Option<bearagent_kernel::ToolCall> {
    rec.events().iter().rev().find_map(|e| match &e.payload {
        EventPayload::ToolCallRequested { call, .. } if &call.call_id == call_id => {
            Some(call.clone())
        }
        _ => None,
    })
}

/// The run ended before its children reported (a later call of the turn
/// ended it): they are cancelled and awaited, so none outlives it; their
/// own records say how each ended.
pub(crate) async fn abandon_tasks(grants: &mut RunGrants) {
    let tasks = std::mem::take(&mut grants.tasks);
    for task in &tasks {
        task.cancel.cancel();
    }
    for mut task in tasks {
        if let Some(running) = task.running.take() {
            let _ = running.done.await;
        }
    }
}

fn child_report(rec: &Recorder, task: &PendingTask) -> Result<ChildReport, AppError> {
    let store = rec.store();
    Ok(match store.get_run(task.child_id)? {
        Some(projection) => {
            let events = store.all_events(task.child_id)?;
            report(&task.description, &projection, &events)
        }
        None => ChildReport {
            succeeded: false,
            spent: Spent::default(),
            content: format!(
                "helper \"{}\" failed: its run {} was never recorded",
                task.description, task.child_id
            ),
        },
    })
}

fn record_result(
    rec: &mut Recorder,
    task: &PendingTask,
    child: ChildReport,
) -> Result<(), AppError> {
    let original_bytes = child.content.len() as u64;
    let mut content = child.content;
    let truncated = content.len() > MAX_REPORT_BYTES;
    if truncated {
        content.truncate(bearagent_tools::floor_char_boundary(
            &content,
            MAX_REPORT_BYTES,
        ));
        content.push_str("\n[the rest of the helper's answer is in its run]");
    }
    let payload = if child.succeeded {
        EventPayload::ToolCallCompleted {
            result: result(&task.call_id, content, false),
            receipt: None,
            truncated,
            original_bytes,
        }
    } else {
        EventPayload::ToolCallFailed {
            result: result(&task.call_id, content, true),
        }
    };
    rec.record(Some(task.started), payload)?;
    Ok(())
}
