//! One tool call: exact registry lookup → prepare → policy → approval →
//! receipt intent → execute once (bounded) → result and receipt.

use super::agent_loop::{stop_if_needed, LoopDeps, RunGrants};
use super::approvals::Decision;
use super::recorder::Recorder;
use super::requested::{ask_after, Requested, StartAfter};
use crate::AppError;
use bearagent_kernel::{
    ApprovalScope, CallId, ContentHash, EffectOutcome, EventPayload, EventSeq, NextCall, Receipt,
    ToolCall, ToolResult,
};
use bearagent_store::hash_bytes;
use bearagent_tools::{Authority, AuthorizedCall, PolicyDecision, PreparedCall, Tool, WriteTarget};
use std::sync::Arc;

pub enum ToolStepEnd {
    Continue,
    RunEnded,
}

fn result(call_id: &CallId, content: String, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: call_id.clone(),
        content,
        is_error,
    }
}

pub(super) fn fail(
    rec: &mut Recorder,
    cause: EventSeq,
    call_id: &CallId,
    message: String,
) -> Result<ToolStepEnd, AppError> {
    rec.record(
        Some(cause),
        EventPayload::ToolCallFailed {
            result: result(call_id, message, true),
        },
    )?;
    Ok(ToolStepEnd::Continue)
}

/// The user said no: the model gets the denial and the reason, if any.
fn denied(
    rec: &mut Recorder,
    seq: EventSeq,
    call_id: &CallId,
    reason: Option<String>,
) -> Result<ToolStepEnd, AppError> {
    let why = reason.map_or_else(String::new, |r| format!(": {r}"));
    fail(rec, seq, call_id, format!("the user denied this call{why}"))
}

pub(super) async fn run_tool_call(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    completed: EventSeq,
    call: ToolCall,
) -> Result<ToolStepEnd, AppError> {
    if stop_if_needed(rec, deps, NextCall::Tool)? {
        return Ok(ToolStepEnd::RunEnded);
    }
    let call_id = call.call_id.clone();
    let mut requested = Requested::new(completed, call.clone());
    let Some(tool) = deps.tool(call.tool_name.as_str()) else {
        let requested = requested.seq(rec)?;
        let known: Vec<String> = crate::mcp::model_tools(&deps.registry, rec.events())
            .into_iter()
            .map(|s| s.name)
            .collect();
        return fail(
            rec,
            requested,
            &call_id,
            format!(
                "unknown tool {:?}; available tools: {}",
                call.tool_name.as_str(),
                known.join(", ")
            ),
        );
    };
    let prepared = match tool.prepare(&call.arguments, &deps.workspace) {
        Ok(p) => p,
        Err(e) => {
            let requested = requested.seq(rec)?;
            return fail(rec, requested, &call_id, format!("invalid arguments: {e}"));
        }
    };
    remember_prepared(grants, &prepared);
    // The folder's own AGENTS.md (nearest wins) informs the turns after it.
    if let Some(target) = prepared.write_target() {
        requested.seq(rec)?;
        let root = deps.workspace.path().to_path_buf();
        crate::thread::load_nested_for(rec, &root, &target.rel_path)?;
    }
    let user_approval =
        match super::loops::guard(rec, deps, grants, &mut requested, &call, &prepared).await? {
            super::loops::Guarded::Proceed { user_approval } => user_approval,
            super::loops::Guarded::Ended(end) => return Ok(end),
        };
    let authorized = match deps
        .policy_with(&grants.command_rules)
        .decide(tool.spec(), prepared)
    {
        PolicyDecision::Allow(authorized) => authorized,
        PolicyDecision::Deny { reason } => {
            let requested = requested.seq(rec)?;
            return fail(
                rec,
                requested,
                &call_id,
                format!("refused by policy: {reason}"),
            );
        }
        PolicyDecision::Ask(request) => {
            // "Always for this run", "the rest of this turn", or the user's
            // "let it go on" after a loop: a decision already recorded
            // answers it; a "no" to the rest of the turn refuses it.
            let approved_before = match grants.rest_of_turn {
                Some((false, denied_at)) => {
                    requested.seq(rec)?;
                    return fail(
                        rec,
                        denied_at,
                        &call_id,
                        "the user denied this and the rest of the calls in your turn".into(),
                    );
                }
                Some((true, approved_at)) => Some(approved_at),
                None => None,
            };
            match grants
                .tools
                .get(call.tool_name.as_str())
                .copied()
                .or(approved_before)
                .or(user_approval)
            {
                Some(approved_at) => request.approve(approved_at),
                None => match ask_after(
                    rec,
                    deps,
                    &mut requested,
                    &call,
                    &super::command_step::approval_summary(deps, grants, request.call()),
                )
                .await?
                {
                    Asked::Granted {
                        seq,
                        scope,
                        allow_prefix,
                    } => {
                        remember_scope(grants, &call, scope, true, seq);
                        remember_prefix(grants, allow_prefix);
                        request.approve(seq)
                    }
                    Asked::Denied { seq, reason, scope } => {
                        remember_scope(grants, &call, scope, false, seq);
                        return denied(rec, seq, &call_id, reason);
                    }
                    Asked::Cancelled => return Ok(ToolStepEnd::RunEnded),
                },
            }
        }
    };
    // Not recorded yet: nothing happened since, and an approval from
    // before (for the run, or the turn) is older than the request.
    let after = match (requested.seq, authorized.authority()) {
        (Some(requested), Authority::User { approval }) if approval > requested => {
            StartAfter::Event(approval)
        }
        (Some(requested), _) => StartAfter::Event(requested),
        (None, _) => StartAfter::Request(requested),
    };
    execute_allowed(rec, deps, grants, tool, call_id, authorized, after).await
}

/// Runs a call that policy or the user allowed: intent, execute once,
/// outcome and artifact.
async fn execute_allowed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    tool: Arc<dyn Tool>,
    call_id: CallId,
    authorized: AuthorizedCall,
    mut after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    if authorized.command_plan().is_some() {
        let cause = after.seq(rec)?;
        return super::command_step::execute_command(rec, deps, grants, call_id, authorized, cause)
            .await;
    }
    if let Some(mcp_tool) = deps.mcp_tools.get(authorized.tool().as_str()).cloned() {
        let cause = after.seq(rec)?;
        return super::mcp_step::execute_mcp(
            rec, deps, grants, call_id, mcp_tool, authorized, cause,
        )
        .await;
    }
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
    grants.loops.executed(
        super::loops::signature(&prepared),
        hash_bytes(outcome.content.as_bytes()),
    );
    if outcome.is_error {
        let failed = rec.record(
            Some(started),
            EventPayload::ToolCallFailed {
                result: result(&call_id, outcome.content, true),
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
        return Ok(ToolStepEnd::Continue);
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
    if let Some(receipt) = receipt {
        rec.record(
            Some(done),
            EventPayload::ArtifactRecorded {
                call_id,
                path: receipt.path,
                before_hash: receipt.before_hash,
                after_hash: receipt.after_hash,
            },
        )?;
    }
    Ok(ToolStepEnd::Continue)
}

/// Continues a run resumed after a restart at its pending approval: the
/// call is prepared again (prepare is pure), the user's decision recorded,
/// and the call executed or the denial fed back. Nothing ran before.
pub(super) async fn resume_decided(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    asked: EventSeq,
    call: ToolCall,
    decision: Decision,
) -> Result<ToolStepEnd, AppError> {
    let call_id = call.call_id.clone();
    let tool = deps.tool(call.tool_name.as_str());
    // An MCP tool whose server did not start again after the restart: the
    // decision is recorded, then the call fails and the model is told.
    let prepared = tool
        .as_ref()
        .map(|tool| tool.prepare(&call.arguments, &deps.workspace));
    if let Some(Ok(p)) = &prepared {
        remember_prepared(grants, p);
    }
    let (seq, scope) = match record_decision(rec, asked, &call, decision)? {
        Asked::Granted {
            seq,
            scope,
            allow_prefix,
        } => {
            remember_prefix(grants, allow_prefix);
            (seq, scope)
        }
        Asked::Denied { seq, reason, scope } => {
            remember_scope(grants, &call, scope, false, seq);
            return denied(rec, seq, &call_id, reason);
        }
        Asked::Cancelled => return Ok(ToolStepEnd::RunEnded),
    };
    remember_scope(grants, &call, scope, true, seq);
    let (tool, prepared) = match (tool, prepared) {
        (Some(tool), Some(Ok(prepared))) => (tool, prepared),
        (_, Some(Err(e))) => return fail(rec, seq, &call_id, format!("invalid arguments: {e}")),
        (_, None) | (None, _) => {
            return fail(
                rec,
                seq,
                &call_id,
                format!(
                    "tool {} is not available since the restart (its MCP server did not start)",
                    call.tool_name
                ),
            )
        }
    };
    // The same path as before the restart: the policy decides again, and
    // the recorded approval answers its "ask".
    let authorized = match deps
        .policy_with(&grants.command_rules)
        .decide(tool.spec(), prepared)
    {
        PolicyDecision::Allow(authorized) => authorized,
        PolicyDecision::Ask(request) => request.approve(seq),
        PolicyDecision::Deny { reason } => {
            return fail(rec, seq, &call_id, format!("refused by policy: {reason}"))
        }
    };
    execute_allowed(
        rec,
        deps,
        grants,
        tool,
        call_id,
        authorized,
        StartAfter::Event(seq),
    )
    .await
}

pub(super) enum Asked {
    Granted {
        seq: EventSeq,
        scope: ApprovalScope,
        allow_prefix: Option<String>,
    },
    Denied {
        seq: EventSeq,
        reason: Option<String>,
        scope: ApprovalScope,
    },
    Cancelled,
}

/// "Always allow commands starting with …": an allow rule for the rest of
/// the run. The profile's rules still apply, and a deny among them wins.
fn remember_prefix(grants: &mut RunGrants, prefix: Option<String>) {
    if let Some(prefix) = prefix {
        grants.command_rules.push(bearagent_kernel::CommandRule {
            prefix,
            decision: bearagent_kernel::RuleDecision::Allow,
        });
    }
}

/// A decision that reaches beyond this call: the tool for the rest of the
/// run (approvals only), or the rest of this model turn (either way).
fn remember_scope(
    grants: &mut RunGrants,
    call: &ToolCall,
    scope: ApprovalScope,
    approved: bool,
    seq: EventSeq,
) {
    match scope {
        ApprovalScope::ToolForRun if approved => {
            grants.tools.insert(call.tool_name.to_string(), seq);
        }
        ApprovalScope::RestOfTurn => grants.rest_of_turn = Some((approved, seq)),
        ApprovalScope::Once | ApprovalScope::ToolForRun => {}
    }
}

pub(super) async fn ask(
    rec: &mut Recorder,
    deps: &LoopDeps,
    requested: EventSeq,
    call: &ToolCall,
    summary: &str,
) -> Result<Asked, AppError> {
    // Register before committing the request so no decision can be lost.
    let waiter = deps.approvals.wait(rec.run_id(), call.call_id.clone());
    let asked = rec.record(
        Some(requested),
        EventPayload::ApprovalRequested {
            call_id: call.call_id.clone(),
            tool_name: call.tool_name.clone(),
            summary: summary.to_owned(),
        },
    )?;
    let decision: Option<Decision> = tokio::select! {
        d = waiter => d.ok(),
        _ = deps.cancel.cancelled() => None,
    };
    let Some(decision) = decision else {
        deps.approvals.forget(rec.run_id(), &call.call_id);
        rec.record(
            Some(asked),
            EventPayload::RunCancelled {
                reason: Some("cancelled while waiting for approval".into()),
            },
        )?;
        return Ok(Asked::Cancelled);
    };
    record_decision(rec, asked, call, decision)
}

fn record_decision(
    rec: &mut Recorder,
    asked: EventSeq,
    call: &ToolCall,
    decision: Decision,
) -> Result<Asked, AppError> {
    if decision.approve {
        let seq = rec.record(
            Some(asked),
            EventPayload::ApprovalGranted {
                call_id: call.call_id.clone(),
                by: decision.by,
                scope: decision.scope,
                allowed_prefix: decision.allow_prefix.clone(),
            },
        )?;
        Ok(Asked::Granted {
            seq,
            scope: decision.scope,
            allow_prefix: decision.allow_prefix,
        })
    } else {
        let seq = rec.record(
            Some(asked),
            EventPayload::ApprovalDenied {
                call_id: call.call_id.clone(),
                by: decision.by,
                scope: decision.scope,
                reason: decision.reason.clone(),
            },
        )?;
        Ok(Asked::Denied {
            seq,
            reason: decision.reason,
            scope: decision.scope,
        })
    }
}

/// A write must not replace content the run has not seen: if the run read
/// or wrote this file before and it changed since, someone else edited it.
fn conflict_with_seen(grants: &RunGrants, target: &WriteTarget) -> Option<String> {
    let seen = grants.seen.get(&target.rel_path)?;
    let now = current_hash(&target.abs_path).ok()?.map(|(h, _)| h);
    (now != *seen).then(|| {
        format!(
            "conflict: {} changed outside this run since the run last read or wrote it; \
             read it again and make your change on top of the current content",
            target.rel_path
        )
    })
}

/// A write applies to the version of the file it was prepared (and maybe
/// approved) against: if the run has not seen the file yet, that version is
/// the one on disk now, so a file that appears or changes while the user
/// decides is not overwritten.
fn remember_prepared(grants: &mut RunGrants, prepared: &PreparedCall) {
    if let Some(target) = prepared.write_target() {
        grants
            .seen
            .entry(target.rel_path.clone())
            .or_insert_with(|| {
                current_hash(&target.abs_path)
                    .ok()
                    .flatten()
                    .map(|(h, _)| h)
            });
    }
}

/// Records the version of the file a successful read or write left the run
/// with.
fn remember_seen(
    grants: &mut RunGrants,
    prepared: &PreparedCall,
    receipt: Option<&Receipt>,
    workspace: &bearagent_tools::WorkspaceRoot,
) {
    if let Some(receipt) = receipt {
        grants
            .seen
            .insert(receipt.path.clone(), receipt.after_hash.clone());
    } else if prepared.tool().as_str() == "read_file" {
        if let Some(rel) = prepared.args().get("path").and_then(|p| p.as_str()) {
            if let Ok(Some((hash, _))) = current_hash(&workspace.path().join(rel)) {
                grants.seen.insert(rel.to_owned(), Some(hash));
            }
        }
    }
}

/// What a write target holds now: its hash, or None when it is absent.
pub(crate) fn current_hash(
    target: &std::path::Path,
) -> Result<Option<(ContentHash, Vec<u8>)>, std::io::Error> {
    match std::fs::read(target) {
        Ok(bytes) => Ok(Some((hash_bytes(&bytes), bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Saves the pre-image and commits the intent before the file is touched.
fn record_intent(
    rec: &mut Recorder,
    started: EventSeq,
    call_id: &CallId,
    target: &WriteTarget,
) -> Result<Option<ContentHash>, AppError> {
    let before = current_hash(&target.abs_path).map_err(|source| AppError::Io {
        path: target.abs_path.clone(),
        source,
    })?;
    let before_hash = match before {
        Some((_, bytes)) => Some(rec.store().put_blob(&bytes, rec.clock().now())?),
        None => None,
    };
    rec.record(
        Some(started),
        EventPayload::EffectIntended {
            call_id: call_id.clone(),
            path: target.rel_path.clone(),
            before_hash: before_hash.clone(),
        },
    )?;
    Ok(before_hash)
}

/// Hashes the file after the tool ran and keeps its post-image as a blob
/// (for diffs and revert).
fn receipt_after(
    rec: &Recorder,
    target: &WriteTarget,
    before_hash: Option<ContentHash>,
) -> Result<Receipt, AppError> {
    let after = current_hash(&target.abs_path).map_err(|source| AppError::Io {
        path: target.abs_path.clone(),
        source,
    })?;
    let (after_hash, bytes_written) = match after {
        Some((_, bytes)) => (
            Some(rec.store().put_blob(&bytes, rec.clock().now())?),
            bytes.len() as u64,
        ),
        None => (None, 0),
    };
    Ok(Receipt {
        path: target.rel_path.clone(),
        before_hash,
        after_hash,
        bytes_written,
    })
}
