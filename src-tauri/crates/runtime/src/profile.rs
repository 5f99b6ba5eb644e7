//! Run profiles: budgets, approval mode and context caps for a run.

use bearagent_kernel::{ApprovalMode, Budgets, CommandSettings, ContextCaps};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProfile {
    pub name: String,
    pub budgets: Budgets,
    pub approval_mode: ApprovalMode,
    /// Invalid model replies fed back to the model before the run fails.
    pub max_invalid_outputs: u32,
    /// Identical calls with identical results in a row before the next one
    /// is refused as a loop (then the user decides whether it may go on).
    pub max_repeated_calls: u32,
    pub context: ContextCaps,
    /// Sandbox, network and command rules for `run_command`.
    pub commands: CommandSettings,
    /// Per MCP server/tool allow / ask / deny (`server` or `server.tool`).
    #[serde(default)]
    pub mcp_rules: bearagent_kernel::McpRules,
    /// Plan first: the run may read and search; writes, edits, commands and
    /// MCP tools that act are refused without asking, and its final answer
    /// is the plan (approved, it runs as a follow-up in the normal mode).
    #[serde(default)]
    pub plan_mode: bool,
    /// The context profile runs get (None: compact for a small window).
    #[serde(default)]
    pub context_profile: Option<crate::run::context_profile::ContextProfile>,
    /// The config's `[web]` rules for `web_fetch` (recorded on the run).
    #[serde(default)]
    pub web_rules: Vec<bearagent_kernel::WebRule>,
    /// Whether runs may hand work to child runs (the `task` tool), how
    /// deep and with what share of the budget (None: they may not).
    #[serde(default)]
    pub delegation: Option<bearagent_kernel::Delegation>,
}

impl Default for RunProfile {
    fn default() -> Self {
        Self {
            name: "default".into(),
            budgets: Budgets::default(),
            approval_mode: ApprovalMode::AskWrites,
            max_invalid_outputs: 2,
            max_repeated_calls: bearagent_kernel::DEFAULT_MAX_REPEATED_CALLS,
            context: ContextCaps::default(),
            commands: CommandSettings::default(),
            mcp_rules: Default::default(),
            plan_mode: false,
            context_profile: None,
            web_rules: Vec::new(),
            delegation: None,
        }
    }
}
