//! The serial AgentLoop, exactly DESIGN.md's lifecycle: budget check →
//! context → model call → (tool call → policy → approval → execute) … →
//! a terminal event. Every fact is committed before the loop acts on it.

use super::approvals::ApprovalGate;
use super::recorder::Recorder;
use super::tool_step::{run_tool_call, ToolStepEnd};
use crate::live::LiveEvent;
use crate::profile::RunProfile;
use crate::AppError;
use bearagent_kernel::{Action, BudgetKind, EventPayload, EventSeq, ModelErrorClass, NextCall};
use bearagent_providers::{
    complete, ModelProvider, Progress, ProviderError, RetryNotice, ToolSchema,
};
use bearagent_tools::{Executor, Policy, Registry, WorkspaceRoot};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub struct LoopDeps {
    pub provider: Arc<dyn ModelProvider>,
    pub registry: Arc<Registry>,
    pub executor: Arc<Executor>,
    pub approvals: Arc<ApprovalGate>,
    pub workspace: WorkspaceRoot,
    pub profile: RunProfile,
    pub cancel: CancellationToken,
    /// The home folder and BearAgent's own folders, for command sandboxes.
    pub host: bearagent_tools::tools::run_command::HostEnvironment,
    /// The run's MCP tools by exposed name (started with the run).
    pub mcp_tools: std::collections::BTreeMap<String, Arc<crate::mcp::McpToolAdapter>>,
    /// The profile's rules for those tools.
    pub tool_rules: std::collections::BTreeMap<String, bearagent_tools::ToolRule>,
    /// The runs this one continues (a follow-up or fork), oldest first.
    pub ancestors: Arc<Vec<Vec<bearagent_kernel::EventEnvelope>>>,
}

impl LoopDeps {
    /// The policy comes from the trusted profile, never from the model,
    /// plus the command rules the user added during the run (after the
    /// profile's, so a profile deny still wins).
    pub(super) fn policy_with(&self, run_rules: &[bearagent_kernel::CommandRule]) -> Policy {
        let mut commands = self.profile.commands.clone();
        commands.rules.extend(run_rules.iter().cloned());
        Policy::new(self.profile.approval_mode)
            .with_commands(commands)
            .with_tool_rules(self.tool_rules.clone())
    }

    /// Exact lookup among the workspace tools and the run's MCP tools.
    pub(super) fn tool(&self, name: &str) -> Option<Arc<dyn bearagent_tools::Tool>> {
        self.registry.get(name).or_else(|| {
            self.mcp_tools
                .get(name)
                .map(|t| t.clone() as Arc<dyn bearagent_tools::Tool>)
        })
    }
}

/// Per-run facts that are not events: tools the user allowed for the rest
/// of the run ("always for this run"), and the version of each file the
/// run last read or wrote (so it never overwrites an edit it has not seen).
#[derive(Default)]
pub(super) struct RunGrants {
    /// Tool name → the seq of the approval that granted it for the run.
    pub tools: std::collections::BTreeMap<String, EventSeq>,
    pub seen: std::collections::HashMap<String, Option<bearagent_kernel::ContentHash>>,
    pub loops: super::loops::LoopGuard,
    /// The user's answer for the rest of the current model turn: approved
    /// or not, and the seq of that decision. Cleared at each new turn.
    pub rest_of_turn: Option<(bool, EventSeq)>,
    /// What the workspace's files were at the last command (taken out
    /// while a snapshot runs).
    pub snapshots: Option<super::snapshot::SnapshotCache>,
    /// "Always allow commands starting with …" rules the user added.
    pub command_rules: Vec<bearagent_kernel::CommandRule>,
    /// MCP servers found gone during the run (reported once each).
    pub mcp_down: std::collections::BTreeSet<String>,
    /// The history built so far, so each step maps only its new events.
    pub context: super::context::ContextCache,
}

enum Step {
    Continue,
    Finished,
}

/// How a model call in flight ended.
enum CallEnd {
    Finished(Result<bearagent_providers::ModelResponse, ProviderError>),
    Cancelled,
    OutOfWallTime,
}

/// Where a loop starts: a new run, or a run resumed at its pending
/// approval with the user's decision.
pub enum LoopStart {
    Fresh,
    Resumed {
        asked: EventSeq,
        call: bearagent_kernel::ToolCall,
        decision: super::approvals::Decision,
    },
}

/// Drives the run to a terminal state. Errors are store failures only:
/// everything the model or a tool does wrong is an event.
pub async fn drive(mut rec: Recorder, deps: LoopDeps, start: LoopStart) -> Result<(), AppError> {
    let mut grants = RunGrants::default();
    let mut invalid_outputs = 0u32;
    if let LoopStart::Resumed {
        asked,
        call,
        decision,
    } = start
    {
        let end =
            super::tool_step::resume_decided(&mut rec, &deps, &mut grants, asked, call, decision)
                .await?;
        if matches!(end, ToolStepEnd::RunEnded) {
            return Ok(());
        }
        // The calls after it in the same turn had not started: run them,
        // so every call of the turn has its result before the next request.
        if let Some((completed, rest)) = unstarted_calls_of_last_turn(rec.events()) {
            for call in rest {
                if let ToolStepEnd::RunEnded =
                    run_tool_call(&mut rec, &deps, &mut grants, completed, call).await?
                {
                    return Ok(());
                }
            }
        }
    }
    let mut offered = crate::mcp::OfferedTools::default();
    loop {
        // From committed events: a server that became unavailable is no
        // longer offered.
        let tools = offered.after(&deps.registry, rec.events());
        match model_step(&mut rec, &deps, tools, &mut grants, &mut invalid_outputs).await? {
            Step::Continue => {}
            Step::Finished => return Ok(()),
        }
    }
}

/// The last model turn's calls that were never requested (the run stopped
/// in the middle of the turn), with the seq of that turn's completion.
fn unstarted_calls_of_last_turn(
    events: &[bearagent_kernel::EventEnvelope],
) -> Option<(EventSeq, Vec<bearagent_kernel::ToolCall>)> {
    let (at, completed, action) = events.iter().enumerate().rev().find_map(|(i, e)| {
        if let EventPayload::ModelCallCompleted { action, .. } = &e.payload {
            Some((i, e.seq, action))
        } else {
            None
        }
    })?;
    let requested: std::collections::BTreeSet<&str> = events[at..]
        .iter()
        .filter_map(|e| {
            if let EventPayload::ToolCallRequested { call } = &e.payload {
                Some(call.call_id.as_str())
            } else {
                None
            }
        })
        .collect();
    let rest: Vec<_> = action
        .calls()
        .iter()
        .filter(|c| !requested.contains(c.call_id.as_str()))
        .cloned()
        .collect();
    Some((completed, rest))
}

/// The tools as the model is told about them (sorted by name: stable).
fn last(rec: &Recorder) -> Option<EventSeq> {
    rec.last_seq()
}

/// Ends the run if cancelled or out of budget. True when it ended.
pub(super) fn stop_if_needed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    next: NextCall,
) -> Result<bool, AppError> {
    if deps.cancel.is_cancelled() {
        rec.record_user_cancel()?;
        return Ok(true);
    }
    let now = rec.clock().now();
    let exhausted = rec
        .state()
        .and_then(|s| s.budgets.exhausted_before(next, &s.spent(now)));
    if let Some(which) = exhausted {
        rec.record(last(rec), EventPayload::BudgetExhausted { which })?;
        return Ok(true);
    }
    Ok(false)
}

fn remaining_wall_time(rec: &Recorder) -> Duration {
    let now = rec.clock().now();
    rec.state().map_or(Duration::ZERO, |s| {
        let spent = s.spent(now).elapsed_ms;
        Duration::from_millis(s.budgets.max_wall_time_ms.saturating_sub(spent))
    })
}

async fn model_step(
    rec: &mut Recorder,
    deps: &LoopDeps,
    tools: &[ToolSchema],
    grants: &mut RunGrants,
    invalid_outputs: &mut u32,
) -> Result<Step, AppError> {
    if stop_if_needed(rec, deps, NextCall::Model)? {
        return Ok(Step::Finished);
    }
    let built = super::compaction::build_request(
        rec,
        deps,
        tools,
        rec.events(),
        Some(&mut grants.context),
    )?;
    let Some((built, estimated_tokens)) =
        super::compaction::fit_window(rec, deps, tools, built).await?
    else {
        return Ok(Step::Finished);
    };
    let info = deps.provider.info();
    if super::spend::cost_budget_blocks(rec, &info, built.bytes) {
        rec.record(
            last(rec),
            EventPayload::BudgetExhausted {
                which: BudgetKind::Cost,
            },
        )?;
        return Ok(Step::Finished);
    }
    // Nothing happens between asking and starting the call: one commit.
    let started = rec.record_chain(
        last(rec),
        vec![
            EventPayload::ModelCallRequested {
                context_version: built.version.to_owned(),
                context_bytes: built.bytes,
                estimated_tokens: Some(estimated_tokens),
                context_window: Some(info.context_window),
            },
            EventPayload::ModelCallStarted {
                provider: info.name,
                model: info.model,
            },
        ],
    )?;
    let run_id = rec.run_id();
    let live = rec.live().clone();
    let retries: Arc<Mutex<Vec<RetryNotice>>> = Arc::default();
    let seen_retries = retries.clone();
    let call = complete(
        deps.provider.as_ref(),
        built.request,
        move |progress| match progress {
            Progress::TextDelta(delta) => live.publish(LiveEvent::TextDelta {
                run_id,
                model_call: started,
                text: delta.to_owned(),
            }),
            Progress::Retrying(notice) => {
                if notice.discarded_partial {
                    live.publish(LiveEvent::TextDiscarded {
                        run_id,
                        model_call: started,
                    });
                }
                if let Ok(mut r) = seen_retries.lock() {
                    r.push(notice.clone());
                }
            }
        },
    );
    let outcome = tokio::select! {
        r = call => CallEnd::Finished(r),
        _ = deps.cancel.cancelled() => CallEnd::Cancelled,
        _ = tokio::time::sleep(remaining_wall_time(rec)) => CallEnd::OutOfWallTime,
    };
    // Retries happened inside the call; they are recorded before its end.
    let notices = retries
        .lock()
        .map(|mut r| std::mem::take(&mut *r))
        .unwrap_or_default();
    for notice in notices {
        rec.record(
            Some(started),
            EventPayload::ModelCallRetryScheduled {
                attempt: notice.attempt,
                delay_ms: notice.delay_ms,
                class: ModelErrorClass::Provider { retryable: true },
                message: notice.message,
                cost_micro_usd: super::spend::cost_of(rec, notice.usage),
                usage: notice.usage,
                discarded_partial: notice.discarded_partial,
            },
        )?;
    }
    let outcome = match outcome {
        CallEnd::Finished(outcome) => outcome,
        CallEnd::Cancelled => {
            rec.record(
                Some(started),
                EventPayload::ModelCallFailed {
                    class: ModelErrorClass::Provider { retryable: false },
                    message: "cancelled by the user during the model call".into(),
                    usage: Default::default(),
                    cost_micro_usd: super::spend::cost_of(rec, Default::default()),
                },
            )?;
            rec.record_user_cancel()?;
            return Ok(Step::Finished);
        }
        // The budget ran out, not the provider: the call is abandoned and
        // the run ends out of wall time, with no invented provider error.
        CallEnd::OutOfWallTime => {
            rec.record(
                Some(started),
                EventPayload::BudgetExhausted {
                    which: BudgetKind::WallTime,
                },
            )?;
            return Ok(Step::Finished);
        }
    };
    match outcome {
        Ok(response) => {
            *invalid_outputs = 0;
            let completed = rec.record(
                Some(started),
                EventPayload::ModelCallCompleted {
                    action: response.action.clone(),
                    usage: response.usage,
                    stop_reason: response.stop_reason,
                    text: response.text.clone(),
                    cost_micro_usd: super::spend::cost_of(rec, response.usage),
                },
            )?;
            match response.action {
                Action::FinalAnswer(answer) => {
                    rec.record(
                        Some(completed),
                        EventPayload::RunSucceeded {
                            answer: answer.content,
                        },
                    )?;
                    Ok(Step::Finished)
                }
                // Each call walks the whole tool path in order; a denial or
                // an error of one does not skip the others' decisions.
                Action::ToolCalls { calls } => {
                    grants.rest_of_turn = None;
                    for call in calls {
                        if let ToolStepEnd::RunEnded =
                            run_tool_call(rec, deps, grants, completed, call).await?
                        {
                            return Ok(Step::Finished);
                        }
                    }
                    Ok(Step::Continue)
                }
            }
        }
        Err(error) => {
            let failed = rec.record(
                Some(started),
                EventPayload::ModelCallFailed {
                    class: error.class(),
                    message: error.to_string(),
                    usage: error.usage(),
                    cost_micro_usd: super::spend::cost_of(rec, error.usage()),
                },
            )?;
            if matches!(error, ProviderError::InvalidOutput { .. }) {
                *invalid_outputs += 1;
                if *invalid_outputs <= deps.profile.max_invalid_outputs {
                    return Ok(Step::Continue);
                }
            }
            let reason = match error.class() {
                ModelErrorClass::InvalidOutput => format!(
                    "invalid model output {} times in a row: {error}",
                    invalid_outputs
                ),
                ModelErrorClass::Provider { .. } => format!("provider error: {error}"),
                ModelErrorClass::ScriptExhausted => format!("script exhausted: {error}"),
                ModelErrorClass::TruncatedStream => format!("truncated stream: {error}"),
            };
            rec.record(Some(failed), EventPayload::RunFailed { reason })?;
            Ok(Step::Finished)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::at;
    use bearagent_kernel::{EventEnvelope, RunId, StopReason, ToolCall};
    use serde_json::json;

    fn envelope(seq: u64, payload: EventPayload) -> EventEnvelope {
        bearagent_kernel::NewEvent::new(at(0), None, payload)
            .into_envelope(RunId::new(), EventSeq(seq))
    }

    #[test]
    fn after_a_resume_the_calls_of_the_turn_that_never_started_are_found() {
        let call = |id: &str| ToolCall::new(id, "write_file", json!({"path": id})).unwrap();
        let events = vec![
            envelope(
                5,
                EventPayload::ModelCallCompleted {
                    action: Action::tool_calls(vec![call("a"), call("b"), call("c")]).unwrap(),
                    usage: Default::default(),
                    stop_reason: StopReason::ToolUse,
                    text: String::new(),
                    cost_micro_usd: None,
                },
            ),
            envelope(6, EventPayload::ToolCallRequested { call: call("a") }),
        ];
        let (completed, rest) = unstarted_calls_of_last_turn(&events).unwrap();
        assert_eq!(completed, EventSeq(5));
        let ids: Vec<&str> = rest.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        assert!(unstarted_calls_of_last_turn(&events[1..]).is_none());
    }
}
