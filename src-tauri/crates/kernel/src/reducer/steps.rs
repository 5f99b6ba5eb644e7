//! What each event type does to a run's state, once its guards pass. One
//! function per event type (or group of types that act alike), called from
//! the dispatch in `transition.rs`.

use super::error::ReduceError;
use super::transition::{Transition, LIVE};
use crate::budget::{BudgetKind, TokenUsage};
use crate::ids::{CallId, ToolName};
use crate::message::{ToolCall, ToolResult};
use crate::projection::{ModelCallPhase, PendingApproval, RunStatus, ToolCallPhase};

/// Shared by the steps below.
impl Transition<'_> {
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
}

/// The run's lifecycle: start, the ways it ends, interruption and resumption.
impl Transition<'_> {
    pub(super) fn run_started(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["created"])?;
        self.state.status = RunStatus::Running;
        Ok(())
    }

    pub(super) fn run_succeeded(&mut self, answer: &str) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_idle()?;
        self.state.final_answer = Some(answer.to_owned());
        self.state.status = RunStatus::Succeeded;
        Ok(())
    }

    pub(super) fn run_failed(&mut self, reason: &str) -> Result<(), ReduceError> {
        self.require_status(&["created", "running", "awaiting_approval", "interrupted"])?;
        self.state.last_error = Some(reason.to_owned());
        self.state.status = RunStatus::Failed {
            reason: reason.to_owned(),
        };
        Ok(())
    }

    pub(super) fn run_cancelled(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["created", "running", "awaiting_approval", "interrupted"])?;
        self.state.status = RunStatus::Cancelled;
        Ok(())
    }

    pub(super) fn budget_exhausted(&mut self, which: BudgetKind) -> Result<(), ReduceError> {
        self.require_status(&["running", "awaiting_approval"])?;
        self.state.status = RunStatus::BudgetExhausted { which };
        Ok(())
    }

    pub(super) fn run_interrupted(&mut self, reason: &str) -> Result<(), ReduceError> {
        self.require_status(LIVE)?;
        // A model call cut off by a crash produced nothing usable.
        self.state.model_call = None;
        self.state.last_error = Some(reason.to_owned());
        self.state.status = RunStatus::Interrupted;
        Ok(())
    }

    /// Back to where it was interrupted: asking, if a question was open.
    pub(super) fn run_resumed(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["interrupted"])?;
        self.state.status = if self.state.pending_approval.is_some() {
            RunStatus::AwaitingApproval
        } else {
            RunStatus::Running
        };
        Ok(())
    }

    /// Servers start and instructions are read when the loop starts;
    /// servers may also fail at any step, and nested instructions are read
    /// when a write first reaches their folder.
    pub(super) fn loop_setup_observed(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["running"])
    }

    /// The model's todo list replaces the last (during the run only).
    pub(super) fn todo_updated(
        &mut self,
        items: &[crate::todo::TodoItem],
    ) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.state.todo = items.to_vec();
        Ok(())
    }
}

/// Model calls: requested, started, retried, completed or failed; and
/// compactions, which are model calls of their own.
impl Transition<'_> {
    pub(super) fn model_call_requested(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_idle()?;
        self.state.model_call = Some(ModelCallPhase::Requested);
        Ok(())
    }

    pub(super) fn model_call_started(&mut self) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_model_phase(ModelCallPhase::Requested)?;
        self.state.model_call = Some(ModelCallPhase::Started);
        self.state.model_calls = self.state.model_calls.saturating_add(1);
        Ok(())
    }

    pub(super) fn model_call_retry_scheduled(
        &mut self,
        usage: TokenUsage,
        cost_micro_usd: Option<u64>,
    ) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_model_phase(ModelCallPhase::Started)?;
        self.spend(usage, cost_micro_usd);
        Ok(())
    }

    pub(super) fn model_call_completed(
        &mut self,
        usage: TokenUsage,
        cost_micro_usd: Option<u64>,
    ) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_model_phase(ModelCallPhase::Started)?;
        self.state.model_call = None;
        self.spend(usage, cost_micro_usd);
        Ok(())
    }

    pub(super) fn model_call_failed(
        &mut self,
        usage: TokenUsage,
        cost_micro_usd: Option<u64>,
        message: &str,
    ) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_model_phase(ModelCallPhase::Started)?;
        self.state.model_call = None;
        self.spend(usage, cost_micro_usd);
        self.state.last_error = Some(message.to_owned());
        Ok(())
    }

    /// A compaction is a model call of its own, made between turns, or by
    /// hand on a finished run (for its next follow-up).
    pub(super) fn context_compacted(
        &mut self,
        usage: TokenUsage,
        cost_micro_usd: Option<u64>,
    ) -> Result<(), ReduceError> {
        if self.state.status == RunStatus::Running {
            self.require_idle()?;
        } else if self.state.status != RunStatus::Interrupted && !self.state.status.is_terminal() {
            return Err(self.invalid("a compaction needs the run between turns or ended"));
        }
        self.state.model_calls = self.state.model_calls.saturating_add(1);
        self.spend(usage, cost_micro_usd);
        Ok(())
    }
}

/// Tool calls and their approvals: requested, asked about, decided,
/// started, progressing, completed or failed; and the loops detected.
impl Transition<'_> {
    pub(super) fn tool_call_requested(&mut self, call: &ToolCall) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_idle_but_tasks()?;
        let call_id = &call.call_id;
        self.state
            .open_tool_calls
            .insert(call_id.clone(), ToolCallPhase::Requested);
        if call.tool_name.as_str() == crate::thread::TASK_TOOL {
            self.state.delegating.insert(call_id.clone());
        }
        Ok(())
    }

    pub(super) fn approval_requested(
        &mut self,
        call_id: &CallId,
        tool_name: &ToolName,
        summary: &str,
    ) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_tool_phase(call_id, &[ToolCallPhase::Requested])?;
        self.state
            .open_tool_calls
            .insert(call_id.clone(), ToolCallPhase::AwaitingApproval);
        self.state.pending_approval = Some(PendingApproval {
            call_id: call_id.clone(),
            tool_name: tool_name.clone(),
            summary: summary.to_owned(),
            requested_seq: self.event.seq,
        });
        self.state.status = RunStatus::AwaitingApproval;
        Ok(())
    }

    /// A grant or a denial: the question closes and the call moves on to
    /// `phase` (Approved or Denied).
    pub(super) fn approval_decided(
        &mut self,
        call_id: &CallId,
        phase: ToolCallPhase,
    ) -> Result<(), ReduceError> {
        self.require_status(&["awaiting_approval"])?;
        self.take_pending(call_id)?;
        self.state.open_tool_calls.insert(call_id.clone(), phase);
        Ok(())
    }

    pub(super) fn tool_call_started(&mut self, call_id: &CallId) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_tool_phase(
            call_id,
            &[ToolCallPhase::Requested, ToolCallPhase::Approved],
        )?;
        self.state
            .open_tool_calls
            .insert(call_id.clone(), ToolCallPhase::Started);
        self.state.tool_calls = self.state.tool_calls.saturating_add(1);
        Ok(())
    }

    /// What a started call reports as it goes: a write about to happen, a
    /// command's start and end.
    pub(super) fn tool_call_progressed(&mut self, call_id: &CallId) -> Result<(), ReduceError> {
        self.require_status(&["running"])?;
        self.require_tool_phase(call_id, &[ToolCallPhase::Started])
    }

    pub(super) fn tool_call_completed(&mut self, result: &ToolResult) -> Result<(), ReduceError> {
        let call_id = &result.call_id;
        self.require_status(&["running"])?;
        self.require_tool_phase(call_id, &[ToolCallPhase::Started])?;
        self.state.open_tool_calls.remove(call_id);
        self.state.delegating.remove(call_id);
        Ok(())
    }

    /// A call may fail at any point before it completes (refused, denied,
    /// or in its execution).
    pub(super) fn tool_call_failed(&mut self, result: &ToolResult) -> Result<(), ReduceError> {
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
        self.state.delegating.remove(&result.call_id);
        self.state.last_error = Some(result.content.clone());
        Ok(())
    }

    pub(super) fn loop_detected(&mut self, call_id: &CallId) -> Result<(), ReduceError> {
        self.require_status(&["running", "awaiting_approval"])?;
        if !self.state.open_tool_calls.contains_key(call_id) {
            return Err(self.invalid(format!("loop detected for unknown call {call_id}")));
        }
        self.state.loops_detected = self.state.loops_detected.saturating_add(1);
        Ok(())
    }
}

/// The workspace's side: changes made outside the run, writes whose
/// outcome could not be proven.
impl Transition<'_> {
    /// Only a run in progress observes: after its end a change is no
    /// longer about the run (the review shows it as a conflict).
    pub(super) fn external_change_observed(&mut self) -> Result<(), ReduceError> {
        self.require_status(LIVE)?;
        self.state.external_changes = self.state.external_changes.saturating_add(1);
        Ok(())
    }

    pub(super) fn effect_unknown(&mut self) -> Result<(), ReduceError> {
        self.state.unknown_effects = self.state.unknown_effects.saturating_add(1);
        Ok(())
    }
}
