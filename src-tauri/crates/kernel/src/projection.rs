//! What a run is, as its events say: the projection the reducer folds
//! them into (status, counters, pending approval, open calls).

use crate::budget::{BudgetKind, Budgets, Spent, TokenUsage};
use crate::clock::Timestamp;
use crate::cost::Price;
use crate::ids::{CallId, EventSeq, RunId, ToolName, WorkspaceId};
use crate::settings::ApprovalMode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunStatus {
    Created,
    Running,
    AwaitingApproval,
    Succeeded,
    Failed { reason: String },
    Cancelled,
    BudgetExhausted { which: BudgetKind },
    Interrupted,
}

impl RunStatus {
    /// Succeeded, failed, cancelled or out of budget: nothing more happens.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            RunStatus::Succeeded
                | RunStatus::Failed { .. }
                | RunStatus::Cancelled
                | RunStatus::BudgetExhausted { .. }
        )
    }

    /// Created, running or awaiting approval: being executed by its owner.
    pub fn is_live(&self) -> bool {
        matches!(
            self,
            RunStatus::Created | RunStatus::Running | RunStatus::AwaitingApproval
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            RunStatus::Created => "created",
            RunStatus::Running => "running",
            RunStatus::AwaitingApproval => "awaiting_approval",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed { .. } => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::BudgetExhausted { .. } => "budget_exhausted",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    pub call_id: CallId,
    pub tool_name: ToolName,
    pub summary: String,
    pub requested_seq: EventSeq,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelCallPhase {
    Requested,
    Started,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallPhase {
    Requested,
    AwaitingApproval,
    Approved,
    Denied,
    Started,
}

/// Everything the UI and the loop need to know about a run, derived from
/// its events alone.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunProjection {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub workspace_path: String,
    pub goal: String,
    pub profile: String,
    pub budgets: Budgets,
    pub approval_mode: ApprovalMode,
    /// Provider name and model, e.g. "demo" / "demo-script" for the demo.
    pub provider: String,
    pub model: String,
    pub status: RunStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_seq: EventSeq,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub usage: TokenUsage,
    /// The provider's price for this run (None: cost unknown).
    #[serde(default)]
    pub price: Option<Price>,
    /// Total cost of the run's model calls in micro-USD; None when the
    /// price is unknown (never shown as 0).
    #[serde(default)]
    pub cost_micro_usd: Option<u64>,
    pub pending_approval: Option<PendingApproval>,
    pub last_error: Option<String>,
    pub final_answer: Option<String>,
    pub model_call: Option<ModelCallPhase>,
    pub open_tool_calls: BTreeMap<CallId, ToolCallPhase>,
    pub unknown_effects: u32,
    pub external_changes: u32,
    /// Repeated calls refused as a loop.
    #[serde(default)]
    pub loops_detected: u32,
    /// The run this one follows up or forks.
    #[serde(default)]
    pub parent: Option<crate::thread::ParentRun>,
    /// The run whose `task` call started this one (a child run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(skip))]
    pub delegated_by: Option<crate::thread::DelegatedBy>,
    /// Open `task` calls (delegation): once started, their children run
    /// while the turn's next calls are requested, so they do not hold the
    /// run the way other open calls do.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    #[cfg_attr(feature = "specta", specta(skip))]
    pub delegating: std::collections::BTreeSet<CallId>,
    /// The model's todo list as it last updated it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub todo: Vec<crate::todo::TodoItem>,
}

impl RunProjection {
    /// What the run has spent, with wall time measured up to `now`.
    pub fn spent(&self, now: Timestamp) -> Spent {
        Spent {
            model_calls: self.model_calls,
            tool_calls: self.tool_calls,
            usage: self.usage,
            elapsed_ms: now.millis_since(self.created_at),
            cost_micro_usd: self.cost_micro_usd.unwrap_or(0),
        }
    }
}
