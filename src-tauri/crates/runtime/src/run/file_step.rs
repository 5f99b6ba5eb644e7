//! A workspace tool's call after policy and approval: the conflict check,
//! the start, the receipt's intent (pre-image) before the file is touched,
//! one bounded execution, the outcome and its artifact. Floor 2 of `run/`.

use super::deps::{LoopDeps, RunGrants};
use super::loop_guard::signature;
use super::outcome::{fail, result, ToolStepEnd};
use super::receipts::{conflict_with_seen, receipt_after, record_intent, remember_seen};
use super::recorder::Recorder;
use super::requested::StartAfter;
use crate::AppError;
use bearagent_kernel::{CallId, EffectOutcome, EventPayload, EventSeq, Receipt};
use bearagent_store::hash_bytes;
use bearagent_tools::{AuthorizedCall, ExecOutcome, WorkspaceTool};
use std::sync::Arc;

pub(crate) async fn execute_file_tool(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    tool: Arc<dyn WorkspaceTool>,
    call_id: CallId,
    authorized: AuthorizedCall,
    mut after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    // The authorisation is spent by the one execution; keep a view.
    let prepared = authorized.prepared().clone();
    if let Some(target) = prepared.write_target() {
        if let Some(conflict) = conflict_with_seen(grants, target) {
            let cause = after.seq(rec)?;
            return fail(rec, cause, &call_id, conflict);
        }
    }
    let started = after.record_start(rec, &call_id)?;
    let intent = match prepared.write_target() {
        Some(target) => Some(record_intent(rec, started, &call_id, target)?),
        None => None,
    };
    let outcome = deps
        .executor
        .execute(
            tool,
            authorized,
            deps.workspace.clone(),
            deps.cancel.child_token(),
        )
        .await;
    let receipt = match (prepared.write_target(), intent) {
        (Some(target), Some(before)) => Some(receipt_after(rec, target, before)?),
        _ => None,
    };
    grants
        .loops
        .executed(signature(&prepared), hash_bytes(outcome.content.as_bytes()));
    if outcome.is_error {
        return record_failed(rec, started, &call_id, outcome, receipt);
    }
    remember_seen(grants, &prepared, receipt.as_ref(), &deps.workspace);
    let done = rec.record(
        Some(started),
        EventPayload::ToolCallCompleted {
            result: result(&call_id, outcome.content, false),
            receipt: receipt.clone(),
            truncated: outcome.truncated,
            original_bytes: outcome.original_bytes,
        },
    )?;
    // The todo list, from the arguments the tool checked when prepared.
    if prepared.tool().as_str() == bearagent_tools::UPDATE_PLAN {
        if let Ok(items) = prepared.args().as_object().map_or(
            Err(bearagent_kernel::TodoError::Shape("not an object".into())),
            bearagent_kernel::todo_from_arguments,
        ) {
            rec.record(Some(done), EventPayload::TodoUpdated { items })?;
        }
    }
    if let Some(receipt) = receipt {
        rec.record(
            Some(done),
            EventPayload::ArtifactRecorded {
                call_id,
                path: receipt.path,
                before_hash: receipt.before_hash,
                after_hash: receipt.after_hash,
                before_mode: None,
                after_mode: None,
                by_hook: None,
            },
        )?;
    }
    Ok(ToolStepEnd::Continue)
}

/// A failed execution: its result, and for a write whether the file
/// changed anyway (checked, never assumed).
fn record_failed(
    rec: &mut Recorder,
    started: EventSeq,
    call_id: &CallId,
    outcome: ExecOutcome,
    receipt: Option<Receipt>,
) -> Result<ToolStepEnd, AppError> {
    let failed = rec.record(
        Some(started),
        EventPayload::ToolCallFailed {
            result: result(call_id, outcome.content, true),
        },
    )?;
    if let Some(receipt) = receipt {
        let applied = receipt.after_hash != receipt.before_hash;
        rec.record(
            Some(failed),
            EventPayload::EffectVerified {
                call_id: call_id.clone(),
                outcome: if applied {
                    EffectOutcome::Applied
                } else {
                    EffectOutcome::NotApplied
                },
            },
        )?;
    }
    if outcome.cancelled {
        rec.record_user_cancel()?;
        return Ok(ToolStepEnd::RunEnded);
    }
    Ok(ToolStepEnd::Continue)
}
