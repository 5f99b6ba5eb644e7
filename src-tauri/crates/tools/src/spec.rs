//! The `Tool` trait and the values that travel along a tool call: the
//! trusted spec, the prepared call and the tool's raw output.

use crate::error::{ArgumentError, ToolError};
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::ToolName;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

/// What a tool may do to the world. Declared by the tool's spec, never by the
/// model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    ReadOnly,
    Writes,
}

/// The trusted description of a tool: what the model is shown and what the
/// policy decides from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: ToolName,
    pub description: String,
    /// A JSON Schema object for the arguments (`additionalProperties: false`).
    pub parameters: Value,
    pub effect: Effect,
}

/// The one file a writing call will create or replace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteTarget {
    /// Workspace-relative, `/`-separated.
    pub rel_path: String,
    /// Absolute path inside the (canonical) workspace root.
    pub abs_path: PathBuf,
}

/// The result of [`Tool::prepare`]: everything the policy, the approval UI
/// and the executor need. Produced only by the tool itself from validated
/// arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreparedCall {
    pub tool: ToolName,
    pub effect: Effect,
    /// One line for humans, e.g. `write 1.2 KB to outputs/report.md (new file)`.
    pub summary: String,
    /// `Some` for every writing call.
    pub write_target: Option<WriteTarget>,
    /// The normalised arguments: defaults filled in, paths workspace-relative.
    pub args: Value,
}

impl PreparedCall {
    /// A call that only reads: no write target.
    pub fn read_only(tool: ToolName, summary: String, args: Value) -> Self {
        Self {
            tool,
            effect: Effect::ReadOnly,
            summary,
            write_target: None,
            args,
        }
    }
}

/// What a tool produced, before the executor bounds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
}

impl ToolOutput {
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }
}

/// A tool. `prepare` validates and normalises; `execute` does the work once.
pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;

    /// Parse and normalise the model's arguments. Rejects unknown, missing or
    /// mistyped arguments and any path that leaves the workspace.
    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError>;

    /// Run the prepared call. Synchronous: the executor runs it on a blocking
    /// thread. Long-running tools poll `cancel` and stop early when it fires.
    fn execute(
        &self,
        call: &PreparedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError>;
}
