//! IPC types of worktree runs: the new-run form's worktree choice, the
//! worktrees listed with their state, what applying one did.

use bearagent_runtime::worktrees::{ApplyReport, WorktreeEntry, WorktreeRequest, WorktreeState};
use serde::{Deserialize, Serialize};

/// "In a new worktree" on the new-run form.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeInput {
    /// The worktree's and its branch's name (default: from the run id).
    #[serde(default)]
    pub name: Option<String>,
    /// The commit to start from (default HEAD).
    #[serde(default)]
    pub base: Option<String>,
    /// Copy the main checkout's uncommitted changes in.
    #[serde(default)]
    pub carry_changes: bool,
}

impl From<WorktreeInput> for WorktreeRequest {
    fn from(w: WorktreeInput) -> Self {
        let blank_none = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        WorktreeRequest {
            name: blank_none(w.name),
            base: blank_none(w.base),
            carry_changes: w.carry_changes,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeStateView {
    Running,
    WaitingForApproval,
    ReadyToApply,
    Applied,
    Discarded,
    Removed,
    Missing,
}

impl From<WorktreeState> for WorktreeStateView {
    fn from(s: WorktreeState) -> Self {
        match s {
            WorktreeState::Running => Self::Running,
            WorktreeState::WaitingForApproval => Self::WaitingForApproval,
            WorktreeState::ReadyToApply => Self::ReadyToApply,
            WorktreeState::Applied => Self::Applied,
            WorktreeState::Discarded => Self::Discarded,
            WorktreeState::Removed => Self::Removed,
            WorktreeState::Missing => Self::Missing,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeView {
    pub path: String,
    pub repo: String,
    pub branch: String,
    pub base: String,
    pub carried_changes: bool,
    pub state: WorktreeStateView,
    pub size_bytes: u64,
    /// The runs that worked in it, oldest first.
    pub runs: Vec<String>,
}

impl From<WorktreeEntry> for WorktreeView {
    fn from(e: WorktreeEntry) -> Self {
        Self {
            path: e.worktree.path,
            repo: e.worktree.repo,
            branch: e.worktree.branch,
            base: e.worktree.base,
            carried_changes: e.worktree.carried_changes,
            state: e.state.into(),
            size_bytes: e.size_bytes,
            runs: e.runs.iter().map(ToString::to_string).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RefusedFileView {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReportView {
    pub applied: Vec<String>,
    pub merged: Vec<String>,
    pub refused: Vec<RefusedFileView>,
}

impl From<ApplyReport> for ApplyReportView {
    fn from(r: ApplyReport) -> Self {
        Self {
            applied: r.applied,
            merged: r.merged,
            refused: r
                .refused
                .into_iter()
                .map(|f| RefusedFileView {
                    path: f.path,
                    reason: f.reason,
                })
                .collect(),
        }
    }
}
