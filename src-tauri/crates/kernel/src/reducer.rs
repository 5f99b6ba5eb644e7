//! The pure reducer: folds a run's events into its projection. Impossible
//! transitions are rejected with an error and never applied.

use crate::budget::TokenUsage;
use crate::event::{EventEnvelope, EventPayload};
use crate::ids::{CallId, EventSeq, RunId};
use std::collections::BTreeMap;

pub use crate::projection::{
    ModelCallPhase, PendingApproval, RunProjection, RunStatus, ToolCallPhase,
};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    #[error("event {seq} ({event}) arrived before run_created")]
    NotCreated { seq: EventSeq, event: &'static str },
    #[error("run {run_id} already exists; run_created may appear only once")]
    AlreadyCreated { run_id: RunId },
    #[error("event for run {got} applied to run {expected}")]
    WrongRun { expected: RunId, got: RunId },
    #[error("event sequence out of order: expected {expected}, got {got}")]
    OutOfOrder { expected: EventSeq, got: EventSeq },
    #[error("event {seq} ({event}) after the run ended as {status}")]
    AfterTerminal {
        seq: EventSeq,
        event: &'static str,
        status: &'static str,
    },
    #[error("event {seq} ({event}) is not allowed while the run is {status}: {reason}")]
    Invalid {
        seq: EventSeq,
        event: &'static str,
        status: &'static str,
        reason: String,
    },
}

/// Folds a whole event list into a projection.
pub fn fold<'a>(
    events: impl IntoIterator<Item = &'a EventEnvelope>,
) -> Result<Option<RunProjection>, ReduceError> {
    let mut state: Option<RunProjection> = None;
    for event in events {
        state = Some(apply(state.as_ref(), event)?);
    }
    Ok(state)
}

/// Applies one event. On error the given state is untouched.
pub fn apply(
    state: Option<&RunProjection>,
    event: &EventEnvelope,
) -> Result<RunProjection, ReduceError> {
    let Some(state) = state else {
        return create(event);
    };
    if event.run_id != state.run_id {
        return Err(ReduceError::WrongRun {
            expected: state.run_id,
            got: event.run_id,
        });
    }
    let expected = state.last_seq.next();
    if event.seq != expected {
        return Err(ReduceError::OutOfOrder {
            expected,
            got: event.seq,
        });
    }
    let mut next = state.clone();
    next.last_seq = event.seq;
    // Reviewing a finished run's files later is not run activity: its
    // timing (and so its duration) stays as the run left it.
    let review = matches!(
        event.payload,
        EventPayload::ArtifactKept { .. }
            | EventPayload::ArtifactReverted { .. }
            | EventPayload::ArtifactReapplied { .. }
    );
    if !review {
        next.updated_at = event.at;
    }
    Transition {
        state: &mut next,
        event,
    }
    .run()?;
    Ok(next)
}

fn create(event: &EventEnvelope) -> Result<RunProjection, ReduceError> {
    let EventPayload::RunCreated {
        goal,
        workspace_id,
        workspace_path,
        profile,
        budgets,
        approval_mode,
        provider,
        model,
        price,
        parent,
        ..
    } = &event.payload
    else {
        return Err(ReduceError::NotCreated {
            seq: event.seq,
            event: event.payload.type_name(),
        });
    };
    if event.seq != EventSeq::FIRST {
        return Err(ReduceError::OutOfOrder {
            expected: EventSeq::FIRST,
            got: event.seq,
        });
    }
    Ok(RunProjection {
        run_id: event.run_id,
        workspace_id: *workspace_id,
        workspace_path: workspace_path.clone(),
        goal: goal.clone(),
        profile: profile.clone(),
        budgets: *budgets,
        approval_mode: *approval_mode,
        provider: provider.clone(),
        model: model.clone(),
        status: RunStatus::Created,
        created_at: event.at,
        updated_at: event.at,
        last_seq: event.seq,
        model_calls: 0,
        tool_calls: 0,
        usage: TokenUsage::default(),
        price: *price,
        cost_micro_usd: price.map(|_| 0),
        pending_approval: None,
        last_error: None,
        final_answer: None,
        model_call: None,
        open_tool_calls: BTreeMap::new(),
        unknown_effects: 0,
        external_changes: 0,
        loops_detected: 0,
        parent: *parent,
    })
}

struct Transition<'a> {
    state: &'a mut RunProjection,
    event: &'a EventEnvelope,
}

impl Transition<'_> {
    fn invalid(&self, reason: impl Into<String>) -> ReduceError {
        ReduceError::Invalid {
            seq: self.event.seq,
            event: self.event.payload.type_name(),
            status: self.state.status.name(),
            reason: reason.into(),
        }
    }

    /// Adds a model call's tokens and, when the run's price is known, its
    /// cost (a call recorded without a cost under a known price is costed
    /// from the price, so a total is never short).
    fn spend(&mut self, usage: TokenUsage, cost_micro_usd: Option<u64>) {
        self.state.usage = self.state.usage.saturating_add(usage);
        if let Some(total) = self.state.cost_micro_usd {
            let cost = cost_micro_usd
                .or_else(|| self.state.price.map(|p| p.cost_micro_usd(usage)))
                .unwrap_or(0);
            self.state.cost_micro_usd = Some(total.saturating_add(cost));
        }
    }

    fn require_status(&self, allowed: &[&str]) -> Result<(), ReduceError> {
        if allowed.contains(&self.state.status.name()) {
            Ok(())
        } else {
            Err(self.invalid(format!("expected the run to be {}", allowed.join(" or "))))
        }
    }

    fn require_idle(&self) -> Result<(), ReduceError> {
        if self.state.model_call.is_some() {
            return Err(self.invalid("a model call is still open"));
        }
        if let Some(call_id) = self.state.open_tool_calls.keys().next() {
            return Err(self.invalid(format!("tool call {call_id} is still open")));
        }
        Ok(())
    }

    fn tool_phase(&self, call_id: &CallId) -> Result<ToolCallPhase, ReduceError> {
        self.state
            .open_tool_calls
            .get(call_id)
            .copied()
            .ok_or_else(|| self.invalid(format!("tool call {call_id} is not open")))
    }

    fn require_tool_phase(
        &self,
        call_id: &CallId,
        allowed: &[ToolCallPhase],
    ) -> Result<(), ReduceError> {
        let phase = self.tool_phase(call_id)?;
        if allowed.contains(&phase) {
            Ok(())
        } else {
            Err(self.invalid(format!("tool call {call_id} is {phase:?}")))
        }
    }

    fn take_pending(&mut self, call_id: &CallId) -> Result<(), ReduceError> {
        match &self.state.pending_approval {
            Some(p) if &p.call_id == call_id => {
                self.state.pending_approval = None;
                self.state.status = RunStatus::Running;
                Ok(())
            }
            _ => Err(self.invalid(format!("no approval is pending for {call_id}"))),
        }
    }

    fn require_model_phase(&self, phase: ModelCallPhase) -> Result<(), ReduceError> {
        if self.state.model_call == Some(phase) {
            Ok(())
        } else {
            Err(self.invalid(format!("expected a model call in phase {phase:?}")))
        }
    }

    fn run(mut self) -> Result<(), ReduceError> {
        let event = self.event;
        let annotation = matches!(
            event.payload,
            EventPayload::ArtifactRecorded { .. }
                | EventPayload::ArtifactReverted { .. }
                | EventPayload::ArtifactReapplied { .. }
                | EventPayload::ArtifactKept { .. }
                | EventPayload::EffectVerified { .. }
                | EventPayload::EffectUnknown { .. }
                // By hand, for the next follow-up.
                | EventPayload::ContextCompacted { .. }
        );
        if self.state.status.is_terminal() && !annotation {
            return Err(ReduceError::AfterTerminal {
                seq: event.seq,
                event: event.payload.type_name(),
                status: self.state.status.name(),
            });
        }
        const LIVE: &[&str] = &["created", "running", "awaiting_approval"];
        match &event.payload {
            EventPayload::RunCreated { .. } => {
                return Err(ReduceError::AlreadyCreated {
                    run_id: self.state.run_id,
                })
            }
            EventPayload::RunStarted => {
                self.require_status(&["created"])?;
                self.state.status = RunStatus::Running;
            }
            EventPayload::ModelCallRequested { .. } => {
                self.require_status(&["running"])?;
                self.require_idle()?;
                self.state.model_call = Some(ModelCallPhase::Requested);
            }
            EventPayload::ModelCallStarted { .. } => {
                self.require_status(&["running"])?;
                self.require_model_phase(ModelCallPhase::Requested)?;
                self.state.model_call = Some(ModelCallPhase::Started);
                self.state.model_calls = self.state.model_calls.saturating_add(1);
            }
            EventPayload::ModelCallRetryScheduled {
                usage,
                cost_micro_usd,
                ..
            } => {
                self.require_status(&["running"])?;
                self.require_model_phase(ModelCallPhase::Started)?;
                self.spend(*usage, *cost_micro_usd);
            }
            EventPayload::ModelCallCompleted {
                usage,
                cost_micro_usd,
                ..
            } => {
                self.require_status(&["running"])?;
                self.require_model_phase(ModelCallPhase::Started)?;
                self.state.model_call = None;
                self.spend(*usage, *cost_micro_usd);
            }
            // A compaction is a model call of its own, made between turns,
            // or by hand on a finished run (for its next follow-up).
            EventPayload::ContextCompacted {
                usage,
                cost_micro_usd,
                ..
            } => {
                if self.state.status == RunStatus::Running {
                    self.require_idle()?;
                } else if self.state.status != RunStatus::Interrupted
                    && !self.state.status.is_terminal()
                {
                    return Err(self.invalid("a compaction needs the run between turns or ended"));
                }
                self.state.model_calls = self.state.model_calls.saturating_add(1);
                self.spend(*usage, *cost_micro_usd);
            }
            EventPayload::ModelCallFailed {
                usage,
                message,
                cost_micro_usd,
                ..
            } => {
                self.require_status(&["running"])?;
                self.require_model_phase(ModelCallPhase::Started)?;
                self.state.model_call = None;
                self.spend(*usage, *cost_micro_usd);
                self.state.last_error = Some(message.clone());
            }
            EventPayload::ToolCallRequested { call } => {
                self.require_status(&["running"])?;
                self.require_idle()?;
                self.state
                    .open_tool_calls
                    .insert(call.call_id.clone(), ToolCallPhase::Requested);
            }
            EventPayload::ApprovalRequested {
                call_id,
                tool_name,
                summary,
            } => {
                self.require_status(&["running"])?;
                self.require_tool_phase(call_id, &[ToolCallPhase::Requested])?;
                self.state
                    .open_tool_calls
                    .insert(call_id.clone(), ToolCallPhase::AwaitingApproval);
                self.state.pending_approval = Some(PendingApproval {
                    call_id: call_id.clone(),
                    tool_name: tool_name.clone(),
                    summary: summary.clone(),
                    requested_seq: event.seq,
                });
                self.state.status = RunStatus::AwaitingApproval;
            }
            EventPayload::ApprovalGranted { call_id, .. } => {
                self.require_status(&["awaiting_approval"])?;
                self.take_pending(call_id)?;
                self.state
                    .open_tool_calls
                    .insert(call_id.clone(), ToolCallPhase::Approved);
            }
            EventPayload::ApprovalDenied { call_id, .. } => {
                self.require_status(&["awaiting_approval"])?;
                self.take_pending(call_id)?;
                self.state
                    .open_tool_calls
                    .insert(call_id.clone(), ToolCallPhase::Denied);
            }
            EventPayload::ToolCallStarted { call_id } => {
                self.require_status(&["running"])?;
                self.require_tool_phase(
                    call_id,
                    &[ToolCallPhase::Requested, ToolCallPhase::Approved],
                )?;
                self.state
                    .open_tool_calls
                    .insert(call_id.clone(), ToolCallPhase::Started);
                self.state.tool_calls = self.state.tool_calls.saturating_add(1);
            }
            EventPayload::EffectIntended { call_id, .. }
            | EventPayload::CommandStarted { call_id, .. }
            | EventPayload::CommandFinished { call_id, .. } => {
                self.require_status(&["running"])?;
                self.require_tool_phase(call_id, &[ToolCallPhase::Started])?;
            }
            EventPayload::ToolCallCompleted { result, .. } => {
                self.require_status(&["running"])?;
                self.require_tool_phase(&result.call_id, &[ToolCallPhase::Started])?;
                self.state.open_tool_calls.remove(&result.call_id);
            }
            EventPayload::ToolCallFailed { result } => {
                self.require_status(&["running"])?;
                self.require_tool_phase(
                    &result.call_id,
                    &[
                        ToolCallPhase::Requested,
                        ToolCallPhase::Approved,
                        ToolCallPhase::Denied,
                        ToolCallPhase::Started,
                    ],
                )?;
                self.state.open_tool_calls.remove(&result.call_id);
                self.state.last_error = Some(result.content.clone());
            }
            // Servers start and instructions are read when the loop starts;
            // servers may also fail at any step, and nested instructions
            // are read when a write first reaches their folder.
            EventPayload::McpServerStarted { .. }
            | EventPayload::McpServerUnavailable { .. }
            | EventPayload::InstructionsLoaded { .. } => {
                self.require_status(&["running"])?;
            }
            EventPayload::ArtifactRecorded { .. }
            | EventPayload::ArtifactReverted { .. }
            | EventPayload::ArtifactReapplied { .. }
            | EventPayload::ArtifactKept { .. }
            | EventPayload::EffectVerified { .. } => {}
            // Only a run in progress observes: after its end a change is
            // no longer about the run (the review shows it as a conflict).
            EventPayload::ExternalChangeObserved { .. } => {
                self.require_status(LIVE)?;
                self.state.external_changes = self.state.external_changes.saturating_add(1);
            }
            EventPayload::EffectUnknown { .. } => {
                self.state.unknown_effects = self.state.unknown_effects.saturating_add(1);
            }
            EventPayload::RunSucceeded { answer } => {
                self.require_status(&["running"])?;
                self.require_idle()?;
                self.state.final_answer = Some(answer.clone());
                self.state.status = RunStatus::Succeeded;
            }
            EventPayload::RunFailed { reason } => {
                self.require_status(&["created", "running", "awaiting_approval", "interrupted"])?;
                self.state.last_error = Some(reason.clone());
                self.state.status = RunStatus::Failed {
                    reason: reason.clone(),
                };
            }
            EventPayload::RunCancelled { .. } => {
                self.require_status(&["created", "running", "awaiting_approval", "interrupted"])?;
                self.state.status = RunStatus::Cancelled;
            }
            EventPayload::BudgetExhausted { which } => {
                self.require_status(&["running", "awaiting_approval"])?;
                self.state.status = RunStatus::BudgetExhausted { which: *which };
            }
            EventPayload::RunInterrupted { reason } => {
                self.require_status(LIVE)?;
                // A model call cut off by a crash produced nothing usable.
                self.state.model_call = None;
                self.state.last_error = Some(reason.clone());
                self.state.status = RunStatus::Interrupted;
            }
            EventPayload::LoopDetected { call_id, .. } => {
                self.require_status(&["running", "awaiting_approval"])?;
                if !self.state.open_tool_calls.contains_key(call_id) {
                    return Err(self.invalid(format!("loop detected for unknown call {call_id}")));
                }
                self.state.loops_detected = self.state.loops_detected.saturating_add(1);
            }
            EventPayload::RunResumed => {
                self.require_status(&["interrupted"])?;
                self.state.status = if self.state.pending_approval.is_some() {
                    RunStatus::AwaitingApproval
                } else {
                    RunStatus::Running
                };
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "reducer_tests.rs"]
mod tests;
