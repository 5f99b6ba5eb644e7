//! Types that cross the IPC boundary. Specta derives live here, not on the
//! core types.
//!
//! One convention, for whoever adds a command:
//! - Kernel types (events, projections, budgets, approval modes, rules) cross
//!   as they are, typed by the kernel's `specta` feature: snake_case fields,
//!   as stored and exported. Everything made here for the UI is a `…View`
//!   (or `…Input` for what the UI sends) with camelCase fields.
//! - Ids cross as strings and are parsed here (`parse_run_id`); a bad one is
//!   an `invalid_input` error, never a panic.
//! - Closed sets (status, protocol, approval mode, key source, transport)
//!   are enums, so the UI switches over them and a new case is a type error.
//! - Errors are `ApiError { code, message }`: the UI picks wording by `code`.
//! - No logic: lookups, defaults and assembly live in the runtime's
//!   application API; here only shapes are converted.

use bearagent_kernel::RunStatus as CoreStatus;
use bearagent_runtime::{AppError, ErrorCode as CoreCode, RunSummary, Workspace};
use serde::{Deserialize, Serialize};

/// What the UI branches on; never the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    NotFound,
    NotADirectory,
    Storage,
    Conflict,
    Dialog,
    /// Something outside BearAgent (an MCP server) failed or did not answer.
    Unavailable,
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<&AppError> for ApiError {
    fn from(e: &AppError) -> Self {
        let code = match e.code() {
            CoreCode::InvalidInput => ErrorCode::InvalidInput,
            CoreCode::NotFound => ErrorCode::NotFound,
            CoreCode::NotADirectory => ErrorCode::NotADirectory,
            CoreCode::Storage => ErrorCode::Storage,
            CoreCode::Conflict => ErrorCode::Conflict,
            CoreCode::Unavailable => ErrorCode::Unavailable,
            CoreCode::Internal => ErrorCode::Internal,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        ApiError::from(&e)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceView {
    pub id: String,
    pub path: String,
    pub name: String,
    /// RFC 3339.
    pub last_opened_at: String,
}

impl From<Workspace> for WorkspaceView {
    fn from(w: Workspace) -> Self {
        Self {
            id: w.id.to_string(),
            path: w.path,
            name: w.name,
            last_opened_at: w.last_opened_at.to_rfc3339(),
        }
    }
}

/// A run's status as the list shows it: the kernel's spelling of the kind
/// (`awaiting_approval`), the same everywhere it crosses IPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStatusKind {
    Created,
    Running,
    AwaitingApproval,
    Succeeded,
    Failed,
    Cancelled,
    BudgetExhausted,
    Interrupted,
}

/// Sent to the UI only (never parsed back), so one serialised shape.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunSummaryView {
    pub run_id: String,
    pub workspace_id: String,
    pub goal: String,
    pub status: RunStatusKind,
    /// Failure reason or exhausted budget, when the status has one.
    pub status_detail: Option<String>,
    /// Provider name ("demo" for the offline demo) and model.
    pub provider: String,
    pub model: String,
    pub created_at: String,
    pub updated_at: String,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Micro-USD; None when the provider has no price (unknown, not 0).
    pub cost_micro_usd: Option<u64>,
    /// The run this one follows up or forks (part of its thread).
    pub parent_run_id: Option<String>,
    /// The run whose `task` call started this one (a helper).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegated_by: Option<DelegatedByView>,
    /// The model's todo list, when it keeps one: steps done of steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub todo: Option<TodoCountView>,
    /// The bundle it was imported from: another machine's record,
    /// read-only here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TodoCountView {
    pub done: u32,
    pub total: u32,
}

impl From<RunSummary> for RunSummaryView {
    fn from(r: RunSummary) -> Self {
        let (status, status_detail) = match r.status {
            CoreStatus::Created => (RunStatusKind::Created, None),
            CoreStatus::Running => (RunStatusKind::Running, None),
            CoreStatus::AwaitingApproval => (RunStatusKind::AwaitingApproval, None),
            CoreStatus::Succeeded => (RunStatusKind::Succeeded, None),
            CoreStatus::Failed { reason } => (RunStatusKind::Failed, Some(reason)),
            CoreStatus::Cancelled => (RunStatusKind::Cancelled, None),
            CoreStatus::BudgetExhausted { which } => {
                (RunStatusKind::BudgetExhausted, Some(which.to_string()))
            }
            CoreStatus::Interrupted => (RunStatusKind::Interrupted, None),
        };
        Self {
            run_id: r.run_id.to_string(),
            workspace_id: r.workspace_id.to_string(),
            goal: r.goal,
            status,
            status_detail,
            provider: r.provider,
            model: r.model,
            created_at: r.created_at.to_rfc3339(),
            updated_at: r.updated_at.to_rfc3339(),
            parent_run_id: r.parent_run_id.map(|p| p.to_string()),
            delegated_by: r.delegated_by.map(Into::into),
            todo: r.todo.map(|(done, total)| TodoCountView { done, total }),
            imported_from: r.imported_from,
            model_calls: r.model_calls,
            tool_calls: r.tool_calls,
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cost_micro_usd: r.cost_micro_usd,
        }
    }
}

/// The run and `task` call that started a helper, its depth (1: a child
/// of a top-level run) and the description its parent gave it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DelegatedByView {
    pub run_id: String,
    pub call_id: String,
    pub depth: u32,
    pub description: String,
}

impl From<bearagent_kernel::DelegatedBy> for DelegatedByView {
    fn from(d: bearagent_kernel::DelegatedBy) -> Self {
        Self {
            run_id: d.run_id.to_string(),
            call_id: d.call_id.to_string(),
            depth: d.depth,
            description: d.description,
        }
    }
}

pub mod artifacts;
pub mod helpers;
pub mod hooks;
pub mod local;
pub mod mcp;
pub mod review;
pub mod runs;
pub mod sandbox;
pub mod settings;
pub mod threads;
pub mod worktrees;
