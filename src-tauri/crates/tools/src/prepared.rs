//! The values that travel along a tool call: the trusted spec, the
//! prepared call and the tool's raw output. Below `spec.rs` (the traits)
//! and `authorization.rs`, which both carry them.

use bearagent_kernel::ToolName;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// What a tool may do to the world. Declared by the tool's spec, never by the
/// model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    ReadOnly,
    Writes,
    /// Runs a command (in the sandbox): it may change any workspace file,
    /// so the command rules and the approval mode decide.
    RunsCommand,
    /// Acts outside the workspace through an MCP server's tool that did
    /// not declare itself read-only: treated like a write (asks unless the
    /// mode allows everything or a profile rule decides).
    External,
}

/// What a `run_command` call will run, as prepared (and approved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandPlan {
    /// Run by `sh -c`.
    pub command: String,
    /// Workspace-relative working directory ("." for the root).
    pub cwd_rel: String,
    /// Absolute, inside the (canonical) workspace root.
    pub cwd_abs: PathBuf,
    /// What the model asked for (None: the profile's longest), capped by
    /// the profile when it runs.
    pub timeout_secs: Option<u32>,
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

/// The result of [`Tool::prepare`](crate::Tool::prepare): everything the policy, the approval UI
/// and the executor need. Produced only by the tool itself from validated
/// arguments; its fields are private so nothing downstream can change what
/// the policy decided on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreparedCall {
    tool: ToolName,
    effect: Effect,
    /// One line for humans, e.g. `write 1.2 KB to outputs/report.md (new file)`.
    summary: String,
    /// `Some` for every writing call.
    write_target: Option<WriteTarget>,
    /// `Some` for every command.
    command: Option<CommandPlan>,
    /// The normalised arguments: defaults filled in, paths workspace-relative.
    args: Value,
}

impl PreparedCall {
    /// A call that only reads: no write target.
    pub fn read_only(tool: ToolName, summary: String, args: Value) -> Self {
        Self {
            tool,
            effect: Effect::ReadOnly,
            summary,
            write_target: None,
            command: None,
            args,
        }
    }

    /// A call that creates or replaces exactly `target`.
    pub fn writes(tool: ToolName, summary: String, target: WriteTarget, args: Value) -> Self {
        Self {
            tool,
            effect: Effect::Writes,
            summary,
            write_target: Some(target),
            command: None,
            args,
        }
    }

    /// A call handed to an MCP server's tool: `read_only` when the tool's
    /// trusted spec says so, else an [`Effect::External`] call.
    pub fn external(tool: ToolName, summary: String, args: Value, read_only: bool) -> Self {
        Self {
            tool,
            effect: if read_only {
                Effect::ReadOnly
            } else {
                Effect::External
            },
            summary,
            write_target: None,
            command: None,
            args,
        }
    }

    /// A call that runs `plan`.
    pub fn command(tool: ToolName, summary: String, plan: CommandPlan, args: Value) -> Self {
        Self {
            tool,
            effect: Effect::RunsCommand,
            summary,
            write_target: None,
            command: Some(plan),
            args,
        }
    }

    pub fn command_plan(&self) -> Option<&CommandPlan> {
        self.command.as_ref()
    }

    pub fn tool(&self) -> &ToolName {
        &self.tool
    }

    pub fn effect(&self) -> Effect {
        self.effect
    }

    pub fn summary(&self) -> &str {
        &self.summary
    }

    pub fn write_target(&self) -> Option<&WriteTarget> {
        self.write_target.as_ref()
    }

    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Test-only: the same call claiming another tool or effect, to check
    /// that the policy and the tools refuse such mismatches.
    #[cfg(test)]
    pub(crate) fn forged(
        mut self,
        tool: Option<ToolName>,
        effect: Option<Effect>,
        drop_target: bool,
    ) -> Self {
        if let Some(tool) = tool {
            self.tool = tool;
        }
        if let Some(effect) = effect {
            self.effect = effect;
        }
        if drop_target {
            self.write_target = None;
        }
        self
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
