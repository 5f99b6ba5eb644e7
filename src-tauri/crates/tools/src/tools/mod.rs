//! The workspace tools and what they share.

pub mod edit_file;
pub mod list_dir;
pub mod proposal;
pub mod read_file;
pub mod run_command;
pub mod search_text;
pub mod update_plan;
mod walk;
pub mod write_file;

use crate::error::ToolError;
use crate::spec::{Effect, PreparedCall, ToolSpec, WorkspaceTool, WriteTarget};
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::ToolName;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// Each tool's `Default` is its `new()` (one place instead of six).
macro_rules! default_is_new {
    ($($tool:ty),* $(,)?) => {
        $(impl Default for $tool {
            fn default() -> Self {
                Self::new()
            }
        })*
    };
}

default_is_new!(
    list_dir::ListDir,
    read_file::ReadFile,
    search_text::SearchText,
    write_file::WriteFile,
    edit_file::EditFile,
    run_command::RunCommand,
    update_plan::UpdatePlan,
);

/// The workspace tools (run by the executor).
pub(crate) fn workspace_tools() -> Vec<Arc<dyn WorkspaceTool>> {
    vec![
        Arc::new(list_dir::ListDir::new()),
        Arc::new(read_file::ReadFile::new()),
        Arc::new(search_text::SearchText::new()),
        Arc::new(write_file::WriteFile::new()),
        Arc::new(edit_file::EditFile::new()),
        Arc::new(update_plan::UpdatePlan::new()),
    ]
}

/// Build a spec for one of our own tools. Names are non-blank constants.
#[allow(
    clippy::expect_used,
    reason = "tool names are non-blank string constants; covered by the registry tests"
)]
fn make_spec(name: &'static str, description: &str, parameters: Value, effect: Effect) -> ToolSpec {
    ToolSpec {
        name: ToolName::new(name).expect("tool names are non-blank constants"),
        description: description.to_owned(),
        parameters,
        effect,
    }
}

/// Decode the normalised arguments of a call prepared by the tool owning
/// `spec`. A call prepared by another tool, or with mangled arguments, is a
/// `BadCall`.
fn own_args<'a, T: Deserialize<'a>>(
    spec: &ToolSpec,
    call: &'a PreparedCall,
) -> Result<T, ToolError> {
    if *call.tool() != spec.name {
        return Err(ToolError::bad_call(format!(
            "{} cannot execute a call prepared for {}",
            spec.name,
            call.tool()
        )));
    }
    T::deserialize(call.args()).map_err(|e| ToolError::bad_call(e.to_string()))
}

/// The write target of a prepared call, checked again just before writing:
/// it must still resolve, inside the workspace, to the same absolute path
/// that was prepared (and approved).
fn checked_target(call: &PreparedCall, ws: &WorkspaceRoot) -> Result<WriteTarget, ToolError> {
    let target = call
        .write_target()
        .ok_or_else(|| ToolError::bad_call("a writing call without a write target"))?;
    let now = ws.resolve_for_write(&target.rel_path)?;
    if now != target.abs_path {
        return Err(ToolError::TargetChanged {
            path: target.rel_path.clone(),
        });
    }
    Ok(target.clone())
}
