//! Asking the user about a call: what the approval card says, waiting for
//! the decision (or cancellation), recording it, and turning a recorded
//! approval into the call's authorisation. Floor 1 of `run/`.

use super::approvals::Decision;
use super::deps::LoopDeps;
use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{ApprovalMode, ApprovalScope, CallId, EventPayload, EventSeq, ToolCall};
use bearagent_tools::{describe_verdict, ApprovalRequest, AuthorizedCall, Effect, PreparedCall};

pub(crate) enum Asked {
    Granted {
        seq: EventSeq,
        scope: ApprovalScope,
        allow_prefix: Option<String>,
        network: bool,
    },
    Denied {
        seq: EventSeq,
        reason: Option<String>,
        scope: ApprovalScope,
    },
    /// The run ended while it waited: cancelled (or, in a replay, its
    /// process ended there).
    Cancelled,
}

/// Records the approval request, waits for the user's decision (or the
/// run's cancellation) and records it.
pub(crate) async fn ask(
    rec: &mut Recorder,
    deps: &LoopDeps,
    requested: EventSeq,
    call: &ToolCall,
    summary: &str,
) -> Result<Asked, AppError> {
    // Register before committing the request so no decision can be lost.
    let waiter = deps.approvals.wait(rec.run_id(), call.call_id.clone());
    rec.absorb_beside()?;
    let asked = rec.record(
        Some(requested),
        EventPayload::ApprovalRequested {
            call_id: call.call_id.clone(),
            tool_name: call.tool_name.clone(),
            summary: recorded_summary(rec, call).unwrap_or_else(|| summary.to_owned()),
        },
    )?;
    rec.absorb_beside()?;
    let decision: Option<Decision> = match rec.tape() {
        // The process ended while it waited: the replay's loop ends here as
        // the process did; the replay drives the resumed part on its own.
        Some(tape) if interrupted_here(tape) => return Ok(Asked::Cancelled),
        Some(tape) => recorded_decision(tape)?,
        None => tokio::select! {
            d = waiter => d.ok(),
            _ = deps.cancel.cancelled() => None,
        },
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

/// Records the user's decision about the request at `asked`.
pub(crate) fn record_decision(
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
                network: decision.network,
            },
        )?;
        Ok(Asked::Granted {
            seq,
            scope: decision.scope,
            allow_prefix: decision.allow_prefix,
            network: decision.network,
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

/// The policy's "ask" answered by the recorded approval at `granted`: the
/// call's authorisation, or why that event does not cover the call (never
/// expected: the loop only passes approvals it recorded for this call or
/// its scope).
pub(crate) fn approved(
    rec: &Recorder,
    request: ApprovalRequest,
    call_id: &CallId,
    granted: EventSeq,
) -> Result<AuthorizedCall, String> {
    let event = rec
        .event(granted)
        .ok_or_else(|| format!("the approval at {} is not in this run", granted.0))?;
    request.approve(call_id, event).map_err(|e| e.to_string())
}

/// What an approval shows: the call's summary and, for a command, where
/// it runs and the rule (or missing rule) that made it ask; for an MCP
/// tool, the rule or why it asks without one.
pub(crate) fn approval_summary(
    deps: &LoopDeps,
    command_rules: &[bearagent_kernel::CommandRule],
    call: &PreparedCall,
) -> String {
    let policy = deps.policy_with(command_rules);
    match policy.command_verdict(call) {
        None => match mcp_note(deps, call) {
            Some(note) => format!("{} · {note}", call.summary()),
            None => call.summary().to_owned(),
        },
        Some(verdict) => {
            let c = &deps.profile.commands;
            let sandbox = match (c.sandbox, c.network) {
                (false, _) => "NOT sandboxed (the sandbox is off in this profile)",
                (true, true) => "sandboxed, network on",
                (true, false) => "sandboxed, no network",
            };
            format!(
                "{} · {sandbox} · {}",
                call.summary(),
                describe_verdict(&verdict)
            )
        }
    }
}

/// What an MCP call's approval adds to its summary: the profile rule that
/// made it ask, or why it asks without one.
fn mcp_note(deps: &LoopDeps, call: &PreparedCall) -> Option<String> {
    let tool = deps.mcp_tools.get(call.tool().as_str())?;
    if let Some(rule) = deps.tool_rules.get(call.tool().as_str()) {
        return Some(rule.rule.clone());
    }
    Some(match (call.effect(), deps.profile.approval_mode) {
        (Effect::ReadOnly, ApprovalMode::AskAll) => {
            "read-only, but this profile asks for every call".to_owned()
        }
        _ => format!(
            "server {} does not mark `{}` read-only → ask",
            tool.server(),
            tool.tool()
        ),
    })
}

/// In a replay: the record says the run's process ended while it waited.
fn interrupted_here(tape: &crate::replay::Tape) -> bool {
    matches!(
        tape.ahead().first().map(|e| &e.payload),
        Some(EventPayload::RunInterrupted { .. })
    )
}

/// In a replay, the user's answer is the recorded one; None where the
/// record says the run was cancelled while it waited.
pub(crate) fn recorded_decision(tape: &crate::replay::Tape) -> Result<Option<Decision>, AppError> {
    match tape.ahead().first().map(|e| &e.payload) {
        Some(EventPayload::ApprovalGranted {
            by,
            scope,
            allowed_prefix,
            network,
            ..
        }) => Ok(Some(Decision {
            approve: true,
            scope: *scope,
            reason: None,
            by: by.clone(),
            allow_prefix: allowed_prefix.clone(),
            network: *network,
        })),
        Some(EventPayload::ApprovalDenied {
            by, scope, reason, ..
        }) => Ok(Some(Decision {
            approve: false,
            scope: *scope,
            reason: reason.clone(),
            by: by.clone(),
            allow_prefix: None,
            network: false,
        })),
        Some(EventPayload::RunCancelled { .. }) => Ok(None),
        other => Err(AppError::Conflict(format!(
            "replay: the record has no answer to this approval (next: {})",
            other.map_or("the end", |p| p.type_name())
        ))),
    }
}

/// In a replay, what the card said is the recorded text: it describes the
/// workspace as it was then ("new file" or "overwrite"), a fact like a
/// tool's effect, not a decision to check again.
fn recorded_summary(rec: &Recorder, call: &ToolCall) -> Option<String> {
    match &rec.tape()?.ahead().first()?.payload {
        EventPayload::ApprovalRequested {
            call_id, summary, ..
        } if call_id == &call.call_id => Some(summary.clone()),
        _ => None,
    }
}
