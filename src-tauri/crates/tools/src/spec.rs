//! The `Tool` trait and the workspace tool it refines. The values that
//! travel along a call live in `prepared.rs`, re-exported here.

use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::workspace::WorkspaceRoot;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use crate::prepared::{CommandPlan, Effect, PreparedCall, ToolOutput, ToolSpec, WriteTarget};

/// A tool: its trusted spec and `prepare`, which validates and normalises
/// the model's arguments. How a tool executes depends on its kind, decided
/// once when it is looked up (see [`Registered`](crate::Registered)):
/// workspace tools through the bounded executor ([`WorkspaceTool`]),
/// commands through [`RunCommand::run`](crate::tools::run_command::RunCommand::run),
/// MCP tools through their server. Each takes the [`AuthorizedCall`].
pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;

    /// Parse and normalise the model's arguments. Rejects unknown, missing or
    /// mistyped arguments and any path that leaves the workspace.
    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError>;
}

/// A tool that works on the workspace's files, run by the bounded
/// [`Executor`](crate::Executor) — the only caller of `execute`.
pub trait WorkspaceTool: Tool {
    /// Run the call the policy allowed or the user approved — only such a
    /// call exists as an [`AuthorizedCall`]. Synchronous: the executor runs
    /// it on a blocking thread. Long-running tools poll `cancel` and stop
    /// early when it fires.
    fn execute(
        &self,
        call: &AuthorizedCall,
        ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError>;
}
