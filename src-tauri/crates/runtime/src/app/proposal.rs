//! The diff a pending write would make, for the approval prompt and card:
//! computed from the workspace as it is now and the tool's own edit logic,
//! so what is shown is what the write would do if approved now.

use super::Application;
use crate::artifacts::diff::{diff_versions, FileDiff};
use crate::artifacts::revert::workspace_of;
use crate::AppError;
use bearagent_kernel::{RunId, ToolCall};
use bearagent_tools::tools::proposal::proposed_write;
use tracing::instrument;

/// The file a pending call would write and its diff against the file now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedChange {
    pub path: String,
    /// True when the file does not exist yet.
    pub new_file: bool,
    pub diff: FileDiff,
}

impl Application {
    /// What `call` of `run_id` would change if it ran now: `None` for a
    /// call that writes no workspace file. A call whose arguments would
    /// fail (no match, a path outside) is an `InvalidInput` saying why.
    #[instrument(skip(self, call), fields(run = %run_id, tool = %call.tool_name))]
    pub fn proposed_change(
        &self,
        run_id: RunId,
        call: &ToolCall,
    ) -> Result<Option<ProposedChange>, AppError> {
        let root = workspace_of(&self.get_run(run_id)?)?;
        let proposal = proposed_write(call.tool_name.as_str(), &call.arguments, &root)
            .map_err(|e| AppError::InvalidInput(e.to_string()))?;
        Ok(proposal.map(|p| ProposedChange {
            new_file: p.before.is_none(),
            diff: diff_versions(p.before.as_deref(), Some(&p.after), false),
            path: p.path,
        }))
    }
}
