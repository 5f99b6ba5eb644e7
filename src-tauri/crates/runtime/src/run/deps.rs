//! What every step of a run reads: the run's dependencies (provider,
//! tools, policy inputs, workspace, cancellation) and its grants — the
//! per-run facts that are not events. Floor 1 of `run/` (see `mod.rs`).

use super::approvals::ApprovalGate;
use super::context_cache::ContextCache;
use super::ledger::Ledger;
use super::loop_guard::LoopGuard;
use super::recorder::Recorder;
use super::snapshot::SnapshotCache;
use super::text_calls::TextCallState;
use crate::mcp::McpToolAdapter;
use crate::profile::RunProfile;
use crate::AppError;
use bearagent_kernel::{
    ApprovalScope, Budgets, CallId, CommandRule, ContentHash, EventEnvelope, EventSeq,
    RuleDecision, RunId, ToolCall,
};
use bearagent_providers::ModelProvider;
use bearagent_tools::tools::run_command::{HostEnvironment, RunCommand};
use bearagent_tools::tools::task::Task;
use bearagent_tools::tools::web_fetch::WebFetch;
use bearagent_tools::web::Fetcher;
use bearagent_tools::{
    Executor, Policy, Registered, Registry, Tool, ToolRule, WorkspaceRoot, WorkspaceTool,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

pub struct LoopDeps {
    pub provider: Arc<dyn ModelProvider>,
    pub registry: Arc<Registry>,
    pub executor: Arc<Executor>,
    pub approvals: Arc<ApprovalGate>,
    pub workspace: WorkspaceRoot,
    pub profile: RunProfile,
    pub cancel: CancellationToken,
    /// The home folder and BearAgent's own folders, for command sandboxes.
    pub host: HostEnvironment,
    /// The run's MCP tools by exposed name (started with the run).
    pub mcp_tools: BTreeMap<String, Arc<McpToolAdapter>>,
    /// The profile's rules for those tools.
    pub tool_rules: BTreeMap<String, ToolRule>,
    /// The runs this one continues (a follow-up or fork), oldest first.
    pub ancestors: Arc<Vec<Vec<EventEnvelope>>>,
    /// The user's hooks and the trusted project's, for this run.
    pub hooks: Arc<crate::hooks::RunHooks>,
    /// The application's web fetcher (its cache shared across runs), or
    /// why there is none; a replay has none and needs none.
    pub web: Result<Arc<Fetcher>, String>,
    /// Starts the `task` tool's child runs (None: a replay, which starts
    /// nothing, or a front end without delegation).
    pub children: Option<Arc<dyn ChildRunner>>,
    /// What this run's children reserved and spent of its budget.
    pub ledger: Arc<Mutex<Ledger>>,
}

/// What a `task` call asks a child run to be.
pub(crate) struct ChildSpec {
    pub run_id: RunId,
    pub call_id: CallId,
    pub description: String,
    pub prompt: String,
    /// Carved from the parent's budget before the child starts.
    pub budgets: Budgets,
    /// How deep the child is (its parent's depth plus one).
    pub depth: u32,
    /// A child of the parent's token: cancelling the parent ends the child.
    pub cancel: CancellationToken,
    /// It may change files: in its own git worktree, never the parent's.
    pub write: bool,
}

/// A child run whose loop runs in the background.
pub(crate) struct RunningChild {
    pub run_id: RunId,
    pub done: tokio::task::JoinHandle<Result<(), AppError>>,
}

/// A `task` call started in this turn: its child, what it reserved, and
/// the start its result answers.
pub(crate) struct PendingTask {
    pub call_id: CallId,
    pub description: String,
    pub cancel: CancellationToken,
    pub started: EventSeq,
    pub child_id: RunId,
    pub budgets: Budgets,
    /// None in a replay: the child is not driven, its record is read.
    pub running: Option<RunningChild>,
}

/// Starts child runs. A child is a whole loop, which lives above the task
/// room (`task_step`): the room reaches it only through this port, which
/// `crate::delegation` implements.
pub(crate) trait ChildRunner: Send + Sync {
    /// Records the child's creation and start in the same store, then
    /// drives it in the background with `parent`'s provider and limits.
    fn start(
        &self,
        parent: &LoopDeps,
        rec: &Recorder,
        child: ChildSpec,
    ) -> Result<RunningChild, AppError>;
}

/// How a looked-up tool executes, decided once at lookup: each kind has
/// exactly one way to run, and each takes the `AuthorizedCall` by value.
#[derive(Clone)]
pub(crate) enum Route {
    /// A workspace tool, through the bounded executor (`file_step`).
    Workspace(Arc<dyn WorkspaceTool>),
    /// `run_command`, in the sandbox with the run's settings (`command_step`).
    Command(Arc<RunCommand>),
    /// A tool of one of the run's MCP servers (`mcp_step`).
    Mcp(Arc<McpToolAdapter>),
    /// `web_fetch`, through the app's fetcher once provenance and the
    /// domain rules decided (`web_step`).
    Web(Arc<WebFetch>),
    /// `task`: a child run (`task_step`).
    Task(Arc<Task>),
}

impl Route {
    /// The spec and `prepare`, the same for every kind.
    pub(crate) fn tool(&self) -> &dyn Tool {
        match self {
            Route::Workspace(tool) => tool.as_ref(),
            Route::Command(tool) => tool.as_ref(),
            Route::Mcp(tool) => tool.as_ref(),
            Route::Web(tool) => tool.as_ref(),
            Route::Task(tool) => tool.as_ref(),
        }
    }
}

impl LoopDeps {
    /// The policy comes from the trusted profile, never from the model,
    /// plus the command rules the user added during the run (after the
    /// profile's, so a profile deny still wins).
    pub(crate) fn policy_with(&self, run_rules: &[CommandRule]) -> Policy {
        let mut commands = self.profile.commands.clone();
        commands.rules.extend(run_rules.iter().cloned());
        Policy::new(self.profile.approval_mode)
            .with_commands(commands)
            .with_tool_rules(self.tool_rules.clone())
            .planning(self.profile.plan_mode)
    }

    /// Exact lookup among the workspace tools and the run's MCP tools.
    pub(crate) fn route(&self, name: &str) -> Option<Route> {
        match self.registry.get(name) {
            Some(Registered::Workspace(tool)) => Some(Route::Workspace(tool)),
            Some(Registered::Command(tool)) => Some(Route::Command(tool)),
            Some(Registered::Web(tool)) => Some(Route::Web(tool)),
            Some(Registered::Task(tool)) => Some(Route::Task(tool)),
            None => self.mcp_tools.get(name).cloned().map(Route::Mcp),
        }
    }
}

/// Per-run facts that are not events: tools the user allowed for the rest
/// of the run ("always for this run"), and the version of each file the
/// run last read or wrote (so it never overwrites an edit it has not seen).
#[derive(Default)]
pub(crate) struct RunGrants {
    /// Tool name → the seq of the approval that granted it for the run.
    pub tools: BTreeMap<String, EventSeq>,
    pub seen: HashMap<String, Option<ContentHash>>,
    pub loops: LoopGuard,
    /// The user's answer for the rest of the current model turn: approved
    /// or not, and the seq of that decision. Cleared at each new turn.
    pub rest_of_turn: Option<(bool, EventSeq)>,
    /// What the workspace's files were at the last command (taken out
    /// while a snapshot runs).
    pub snapshots: Option<SnapshotCache>,
    /// "Always allow commands starting with …" rules the user added.
    pub command_rules: Vec<CommandRule>,
    /// MCP servers found gone during the run (reported once each).
    pub mcp_down: BTreeSet<String>,
    /// The history built so far, so each step maps only its new events.
    pub context: ContextCache,
    /// Tool calls the model printed as text, and the JSON-text provider
    /// once the run switched to it.
    pub text: TextCallState,
    /// The `task` calls of this turn whose children run (or, in a replay,
    /// whose results the record holds), in call order.
    pub tasks: Vec<PendingTask>,
}

impl RunGrants {
    /// "Always allow commands starting with …": an allow rule for the rest
    /// of the run. The profile's rules still apply, and a deny among them
    /// wins.
    pub(crate) fn remember_prefix(&mut self, prefix: Option<String>, network: bool) {
        if let Some(prefix) = prefix {
            self.command_rules.push(CommandRule {
                prefix,
                decision: if network {
                    RuleDecision::AllowNetwork
                } else {
                    RuleDecision::Allow
                },
            });
        }
    }

    /// A decision that reaches beyond this call: the tool for the rest of
    /// the run (approvals only), or the rest of this model turn (either way).
    pub(crate) fn remember_scope(
        &mut self,
        call: &ToolCall,
        scope: ApprovalScope,
        approved: bool,
        seq: EventSeq,
    ) {
        match scope {
            ApprovalScope::ToolForRun if approved => {
                self.tools.insert(call.tool_name.to_string(), seq);
            }
            ApprovalScope::RestOfTurn => self.rest_of_turn = Some((approved, seq)),
            ApprovalScope::Once | ApprovalScope::ToolForRun => {}
        }
    }
}
