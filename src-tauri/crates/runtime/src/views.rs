//! What the application API returns: plain data, no store or kernel
//! internals the front ends would have to interpret.

use bearagent_kernel::{RunId, RunProjection, RunStatus, Timestamp, WorkspaceId};
use bearagent_store::WorkspaceRecord;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub id: WorkspaceId,
    pub path: String,
    pub name: String,
    pub last_opened_at: Timestamp,
}

impl From<WorkspaceRecord> for Workspace {
    fn from(r: WorkspaceRecord) -> Self {
        Workspace {
            id: r.id,
            path: r.path,
            name: r.name,
            last_opened_at: r.last_opened_at,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub goal: String,
    pub status: RunStatus,
    /// Provider name and model, e.g. "demo" for the offline demo.
    pub provider: String,
    pub model: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Micro-USD; None when the provider has no price (unknown, not 0).
    pub cost_micro_usd: Option<u64>,
    /// The run this one follows up or forks.
    pub parent_run_id: Option<RunId>,
    /// The run whose `task` call started this one (a helper).
    pub delegated_by: Option<bearagent_kernel::DelegatedBy>,
    /// The model's todo list: (steps done, steps), when it keeps one.
    pub todo: Option<(u32, u32)>,
    /// The bundle it was imported from: another machine's record,
    /// read-only here. None for a run made here.
    pub imported_from: Option<String>,
}

impl From<RunProjection> for RunSummary {
    fn from(p: RunProjection) -> Self {
        RunSummary {
            run_id: p.run_id,
            workspace_id: p.workspace_id,
            goal: p.goal,
            status: p.status,
            provider: p.provider,
            model: p.model,
            created_at: p.created_at,
            updated_at: p.updated_at,
            model_calls: p.model_calls,
            tool_calls: p.tool_calls,
            input_tokens: p.usage.input,
            output_tokens: p.usage.output,
            cost_micro_usd: p.cost_micro_usd,
            parent_run_id: p.parent.map(|p| p.run_id),
            delegated_by: p.delegated_by,
            todo: (!p.todo.is_empty()).then(|| {
                let done = p
                    .todo
                    .iter()
                    .filter(|i| i.status == bearagent_kernel::TodoStatus::Completed)
                    .count();
                (done as u32, p.todo.len() as u32)
            }),
            imported_from: None,
        }
    }
}
