//! One event applied to a copy of the state: the guards it must pass, and
//! the dispatch of each event type to its step (in `steps.rs`).

use super::error::ReduceError;
use crate::event::{EventEnvelope, EventPayload};
use crate::ids::CallId;
use crate::projection::{ModelCallPhase, RunProjection, ToolCallPhase};
// Short enough for a match arm on one line.
use crate::projection::ToolCallPhase::{Approved, Denied};

/// The run's copy being changed, and the event changing it.
pub(super) struct Transition<'a> {
    pub(super) state: &'a mut RunProjection,
    pub(super) event: &'a EventEnvelope,
}

/// Statuses in which a run is still in progress.
pub(super) const LIVE: &[&str] = &["created", "running", "awaiting_approval"];

impl Transition<'_> {
    pub(super) fn invalid(&self, reason: impl Into<String>) -> ReduceError {
        ReduceError::Invalid {
            seq: self.event.seq,
            event: self.event.payload.type_name(),
            status: self.state.status.name(),
            reason: reason.into(),
        }
    }

    pub(super) fn require_status(&self, allowed: &[&str]) -> Result<(), ReduceError> {
        if allowed.contains(&self.state.status.name()) {
            Ok(())
        } else {
            Err(self.invalid(format!("expected the run to be {}", allowed.join(" or "))))
        }
    }

    pub(super) fn require_idle(&self) -> Result<(), ReduceError> {
        if self.state.model_call.is_some() {
            return Err(self.invalid("a model call is still open"));
        }
        if let Some(call_id) = self.state.open_tool_calls.keys().next() {
            return Err(self.invalid(format!("tool call {call_id} is still open")));
        }
        Ok(())
    }

    /// Idle but for started `task` calls, whose children run while the
    /// turn's other calls are requested (delegation).
    pub(super) fn require_idle_but_tasks(&self) -> Result<(), ReduceError> {
        if self.state.model_call.is_some() {
            return Err(self.invalid("a model call is still open"));
        }
        let holding = self.state.open_tool_calls.iter().find(|(id, phase)| {
            **phase != ToolCallPhase::Started || !self.state.delegating.contains(*id)
        });
        if let Some((call_id, _)) = holding {
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

    pub(super) fn require_tool_phase(
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

    pub(super) fn require_model_phase(&self, phase: ModelCallPhase) -> Result<(), ReduceError> {
        if self.state.model_call == Some(phase) {
            Ok(())
        } else {
            Err(self.invalid(format!("expected a model call in phase {phase:?}")))
        }
    }

    fn already_created(&self) -> ReduceError {
        ReduceError::AlreadyCreated {
            run_id: self.state.run_id,
        }
    }

    /// An ended run takes only annotations: its files' review, the
    /// verdicts on its writes, and a compaction for its next follow-up.
    fn require_not_ended(&self) -> Result<(), ReduceError> {
        let event = self.event;
        let annotation = event.payload.is_review()
            || matches!(
                event.payload,
                EventPayload::ArtifactRecorded { .. }
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
        Ok(())
    }

    /// Applies the event once its guards pass.
    pub(super) fn run(self) -> Result<(), ReduceError> {
        self.require_not_ended()?;
        self.dispatch()
    }

    /// Every event type, no wildcard: a new type does not compile until it
    /// is given a step here.
    fn dispatch(mut self) -> Result<(), ReduceError> {
        let event = self.event;
        match &event.payload {
            EventPayload::RunCreated { .. } => Err(self.already_created()),
            EventPayload::RunStarted => self.run_started(),
            EventPayload::ModelCallRequested { .. } => self.model_call_requested(),
            EventPayload::ModelCallStarted { .. } => self.model_call_started(),
            EventPayload::ModelCallRetryScheduled {
                usage,
                cost_micro_usd,
                ..
            } => self.model_call_retry_scheduled(*usage, *cost_micro_usd),
            EventPayload::ModelCallCompleted {
                usage,
                cost_micro_usd,
                ..
            } => self.model_call_completed(*usage, *cost_micro_usd),
            EventPayload::ContextCompacted {
                usage,
                cost_micro_usd,
                ..
            } => self.context_compacted(*usage, *cost_micro_usd),
            EventPayload::ModelCallFailed {
                usage,
                message,
                cost_micro_usd,
                ..
            } => self.model_call_failed(*usage, *cost_micro_usd, message),
            EventPayload::ToolCallRequested { call, .. } => self.tool_call_requested(call),
            EventPayload::ApprovalRequested {
                call_id,
                tool_name,
                summary,
            } => self.approval_requested(call_id, tool_name, summary),
            EventPayload::ApprovalGranted { call_id, .. } => {
                self.approval_decided(call_id, Approved)
            }
            EventPayload::ApprovalDenied { call_id, .. } => self.approval_decided(call_id, Denied),
            EventPayload::ToolCallStarted { call_id } => self.tool_call_started(call_id),
            EventPayload::EffectIntended { call_id, .. }
            | EventPayload::CommandStarted { call_id, .. }
            | EventPayload::CommandFinished { call_id, .. }
            | EventPayload::WebFetched { call_id, .. }
            | EventPayload::WebFetchFailed { call_id, .. } => self.tool_call_progressed(call_id),
            EventPayload::ToolCallCompleted { result, .. } => self.tool_call_completed(result),
            EventPayload::ToolCallFailed { result } => self.tool_call_failed(result),
            EventPayload::McpServerStarted { .. }
            | EventPayload::McpServerUnavailable { .. }
            | EventPayload::InstructionsLoaded { .. }
            | EventPayload::HookRan { .. }
            | EventPayload::HooksNotTrusted { .. }
            | EventPayload::ToolModeSwitched { .. } => self.loop_setup_observed(),
            EventPayload::ArtifactRecorded { .. }
            | EventPayload::ArtifactReverted { .. }
            | EventPayload::ArtifactReapplied { .. }
            | EventPayload::ArtifactHunksReverted { .. }
            | EventPayload::ArtifactKept { .. }
            | EventPayload::ArtifactHunksKept { .. }
            | EventPayload::ReviewIntended { .. }
            | EventPayload::ReviewAbandoned { .. }
            | EventPayload::RewindStarted { .. }
            | EventPayload::ArtifactEdited { .. }
            | EventPayload::ArtifactRewound { .. }
            | EventPayload::WorktreeApplied { .. }
            | EventPayload::WorktreeRemoved { .. }
            | EventPayload::WorktreeStep { .. }
            | EventPayload::EffectVerified { .. } => Ok(()),
            EventPayload::TodoUpdated { items } => self.todo_updated(items),
            EventPayload::ExternalChangeObserved { .. } => self.external_change_observed(),
            EventPayload::EffectUnknown { .. } => self.effect_unknown(),
            EventPayload::RunSucceeded { answer } => self.run_succeeded(answer),
            EventPayload::RunFailed { reason } => self.run_failed(reason),
            EventPayload::RunCancelled { .. } => self.run_cancelled(),
            EventPayload::BudgetExhausted { which } => self.budget_exhausted(*which),
            EventPayload::RunInterrupted { reason } => self.run_interrupted(reason),
            EventPayload::LoopDetected { call_id, .. } => self.loop_detected(call_id),
            EventPayload::RunResumed => self.run_resumed(),
        }
    }
}
