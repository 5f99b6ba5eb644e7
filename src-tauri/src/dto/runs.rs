//! IPC types of the run experience. Kernel types (events, projections,
//! budgets) cross as they are, typed by the kernel's `specta` feature.

use super::{ApiError, ErrorCode};
use bearagent_kernel::{
    ApprovalMode, ApprovalScope, Budgets, EventEnvelope, HistoryItem, RunId, RunProjection,
    WorkspaceId,
};
use bearagent_runtime::{
    BuiltContext, Decision, ImageInput, Ownership, RunDetail, RunFilter, RunRequest,
};
use serde::{Deserialize, Serialize};

pub fn parse_run_id(raw: &str) -> Result<RunId, ApiError> {
    raw.parse()
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, format!("{e}")))
}

fn parse_workspace_id(raw: &str) -> Result<WorkspaceId, ApiError> {
    raw.parse()
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, format!("{e}")))
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StartRunRequest {
    pub workspace_id: String,
    pub goal: String,
    /// A configured provider's name, or "demo" for the offline demo model.
    pub provider: String,
    pub approval_mode: ApprovalMode,
    pub budgets: Budgets,
    /// The profile whose other settings (command sandbox and rules, context
    /// caps, loop detection) the run takes; "default" when absent.
    #[serde(default)]
    pub profile: Option<String>,
    /// Images pasted or dropped into the goal box.
    #[serde(default)]
    pub images: Vec<ImageUpload>,
    /// Run in a new git worktree of the workspace's repository.
    #[serde(default)]
    pub worktree: Option<crate::dto::worktrees::WorktreeInput>,
    /// Plan first: the run only reads, and its answer is the plan.
    #[serde(default)]
    pub plan_mode: bool,
    /// Helpers: the run may hand work to read-only child runs (`task`).
    #[serde(default)]
    pub delegate: bool,
}

impl StartRunRequest {
    pub fn into_request(self) -> Result<RunRequest, ApiError> {
        Ok(RunRequest {
            workspace_id: parse_workspace_id(&self.workspace_id)?,
            goal: self.goal,
            provider: self.provider,
            profile: self.profile,
            approval_mode: self.approval_mode,
            budgets: self.budgets,
            images: image_inputs(self.images)?,
            worktree: self.worktree.map(Into::into),
            plan_mode: self.plan_mode,
            delegate: self.delegate,
        })
    }
}

/// An image from the goal or reply box: its name and its bytes in base64
/// (the type is read from the bytes by the backend, never trusted).
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ImageUpload {
    pub name: String,
    pub data_base64: String,
}

pub fn image_inputs(uploads: Vec<ImageUpload>) -> Result<Vec<ImageInput>, ApiError> {
    use base64::Engine as _;
    uploads
        .into_iter()
        .map(|u| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(u.data_base64.as_bytes())
                .map_err(|e| {
                    ApiError::new(
                        ErrorCode::InvalidInput,
                        format!("image {} is not valid base64: {e}", u.name),
                    )
                })?;
            Ok(ImageInput {
                name: u.name,
                bytes,
            })
        })
        .collect()
}

#[derive(Debug, Clone, Copy, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RememberScopeView {
    Workspace,
    Everywhere,
}

impl From<RememberScopeView> for bearagent_runtime::RememberScope {
    fn from(s: RememberScopeView) -> Self {
        match s {
            RememberScopeView::Workspace => Self::Workspace,
            RememberScopeView::Everywhere => Self::Everywhere,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StartedRun {
    pub run_id: String,
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DecisionInput {
    pub approve: bool,
    pub scope: ApprovalScope,
    /// Given to the model with a denial.
    pub reason: Option<String>,
    /// With an approval of a command: also allow, for the rest of the run,
    /// commands starting with these words.
    #[serde(default)]
    pub allow_prefix: Option<String>,
    /// With an approval of a command: it gets the network in the sandbox
    /// (and so do the commands `allow_prefix` allows).
    #[serde(default)]
    pub network: bool,
    /// With an allowed prefix: keep it beyond the run, for this workspace
    /// or every workspace.
    #[serde(default)]
    pub remember: Option<RememberScopeView>,
}

impl DecisionInput {
    pub fn into_decision(self) -> Decision {
        let reason = self.reason.filter(|r| !r.trim().is_empty());
        Decision {
            approve: self.approve,
            scope: self.scope,
            reason,
            by: "user".into(),
            allow_prefix: self.allow_prefix.filter(|p| !p.trim().is_empty()),
            network: self.network,
        }
    }
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunFilterInput {
    pub workspace_id: Option<String>,
    /// A status kind: "running", "failed", …
    pub status: Option<String>,
    /// Text the goal contains (case-insensitive).
    pub text: Option<String>,
    pub limit: Option<u32>,
    /// Only runs imported from run files (any workspace).
    #[serde(default)]
    pub imported_only: Option<bool>,
}

impl RunFilterInput {
    pub fn into_filter(self) -> Result<RunFilter, ApiError> {
        Ok(RunFilter {
            workspace_id: self
                .workspace_id
                .as_deref()
                .map(parse_workspace_id)
                .transpose()?,
            status: self.status.filter(|s| !s.is_empty()),
            text: self.text.filter(|t| !t.trim().is_empty()),
            limit: self.limit,
            imported_only: self.imported_only.unwrap_or(false),
        })
    }
}

/// Which BearAgent process executes a run. Approvals and cancel belong to
/// that process: a window shows another process's run but cannot steer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunOwnerView {
    Here,
    Elsewhere {
        pid: u32,
        program: String,
    },
    /// Finished, or its process is gone.
    Nobody,
}

impl From<Ownership> for RunOwnerView {
    fn from(o: Ownership) -> Self {
        match o {
            Ownership::Here => RunOwnerView::Here,
            Ownership::Elsewhere(owner) => RunOwnerView::Elsewhere {
                pid: owner.pid,
                program: owner.program,
            },
            Ownership::Nobody => RunOwnerView::Nobody,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunDetailView {
    pub projection: RunProjection,
    /// Its loop runs in this process now.
    pub active: bool,
    pub owner: RunOwnerView,
    /// The bundle it was imported from: another machine's record,
    /// read-only here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
}

impl From<RunDetail> for RunDetailView {
    fn from(d: RunDetail) -> Self {
        Self {
            projection: d.projection,
            active: d.active,
            owner: d.owner.into(),
            imported_from: d.imported_from,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    pub events: Vec<EventEnvelope>,
    /// More events follow the last one returned.
    pub has_more: bool,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchemaView {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelContextView {
    pub system: String,
    pub history: Vec<HistoryItem>,
    pub tools: Vec<ToolSchemaView>,
    pub version: String,
    pub bytes: u64,
}

impl From<BuiltContext> for ModelContextView {
    fn from(c: BuiltContext) -> Self {
        Self {
            system: c.request.system,
            history: c.request.history.to_vec(),
            tools: c
                .request
                .tools
                .iter()
                .map(|t| ToolSchemaView {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters: t.parameters.clone(),
                })
                .collect(),
            version: c.version.to_owned(),
            bytes: c.bytes,
        }
    }
}
