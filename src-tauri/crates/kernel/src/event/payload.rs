//! The payload of every event type, one variant per fact about a run.

use super::defaults::{default_max_repeated_calls, is_false};
use super::kinds::{ApprovalScope, EffectOutcome, ModelErrorClass, Receipt, StopReason};
use crate::budget::{BudgetKind, Budgets, TokenUsage};
use crate::cost::Price;
use crate::ids::{CallId, ContentHash, EventSeq, ToolName, WorkspaceId};
use crate::message::{Action, ToolCall, ToolResult};
use crate::review::ReviewAction;
use crate::settings::{ApprovalMode, ContextCaps};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
// RunCreated carries every setting of the run; it is one per run, and
// boxing it would make every reader of the settings unpack a box.
#[allow(clippy::large_enum_variant)]
pub enum EventPayload {
    /// The run exists: its goal, workspace and every setting in force
    /// (budgets, approvals, caps, provider, price, command sandbox, rules).
    RunCreated {
        goal: String,
        workspace_id: WorkspaceId,
        workspace_path: String,
        profile: String,
        budgets: Budgets,
        approval_mode: ApprovalMode,
        context_caps: ContextCaps,
        /// Invalid model replies fed back before the run fails.
        max_invalid_outputs: u32,
        /// Identical calls with identical results in a row before the next
        /// one is refused as a loop.
        #[serde(default = "default_max_repeated_calls")]
        max_repeated_calls: u32,
        /// Configured provider name and model (never a key).
        provider: String,
        model: String,
        /// The provider's price when the run started (None: cost unknown).
        #[serde(default)]
        price: Option<Price>,
        /// Sandbox, network and command rules in force for commands.
        #[serde(default)]
        commands: crate::commands::CommandSettings,
        /// The profile's per-server/tool rules for MCP tools.
        #[serde(default)]
        mcp_rules: crate::mcp::McpRules,
        /// The run this one follows up or forks (None: a new conversation).
        #[serde(default)]
        parent: Option<crate::thread::ParentRun>,
        /// The run whose `task` call started this one (delegation).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delegated_by: Option<crate::thread::DelegatedBy>,
        /// Set when the run may start child runs with the `task` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delegation: Option<crate::thread::Delegation>,
        /// Images that go with the goal (blob refs), in the order given.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::image::ImageRef>,
        /// The git worktree the run works in (`workspace_path` is its
        /// folder; `workspace_id` the main checkout's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worktree: Option<crate::worktree::Worktree>,
        /// Plan first: only reads run, and the final answer is the plan.
        #[serde(default, skip_serializing_if = "is_false")]
        plan_mode: bool,
        /// Versions of config, prompt and context format in force.
        config_versions: BTreeMap<String, String>,
        /// What the provider's local server (`server = …` in its config)
        /// said about its window and tools when asked before the run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        learned: Option<crate::learned::LearnedModel>,
        /// The config's per-domain rules for `web_fetch`, in force for
        /// the run (a replay decides with them).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        web_rules: Vec<crate::web::WebRule>,
    },
    /// The loop began executing the run.
    RunStarted,
    /// Project instructions (`AGENTS.md`) read for the model: the file's
    /// workspace-relative path and its content as the blob `blob` (cut to
    /// the cap when `truncated`), so "what the model saw" stays exact after the file changes.
    InstructionsLoaded {
        path: String,
        blob: ContentHash,
        bytes: u64,
        truncated: bool,
    },
    /// A model call is about to be made with a context of this version and
    /// size (rebuilt exactly by "what the model saw").
    ModelCallRequested {
        context_version: String,
        context_bytes: u64,
        /// The request's size in tokens as estimated against the window.
        #[serde(default)]
        estimated_tokens: Option<u64>,
        /// The model's window in tokens.
        #[serde(default)]
        context_window: Option<u64>,
        /// SHA-256 over the exact request (see the context builder); a
        /// replay checks it. Absent on runs recorded before digests.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_digest: Option<ContentHash>,
    },
    /// The request went to this provider and model.
    ModelCallStarted { provider: String, model: String },
    /// An attempt failed retryably (429, 5xx, overload, an error inside
    /// the stream) and is retried after `delay_ms`.
    ModelCallRetryScheduled {
        attempt: u32,
        delay_ms: u64,
        class: ModelErrorClass,
        message: String,
        /// Tokens the failed attempt was billed for (as far as the provider
        /// said before failing); counted in the run's usage.
        #[serde(default)]
        usage: TokenUsage,
        /// The failed attempt had streamed text or tool calls, now void.
        #[serde(default)]
        discarded_partial: bool,
        /// What `usage` cost, micro-USD (None: the price is unknown).
        #[serde(default)]
        cost_micro_usd: Option<u64>,
    },
    /// The model answered: tool calls or a final answer, with its usage, cost and text.
    ModelCallCompleted {
        action: Action,
        usage: TokenUsage,
        stop_reason: StopReason,
        /// Everything the model wrote in this call (narration before a
        /// tool call, or the answer), so the timeline keeps it.
        #[serde(default)]
        text: String,
        /// What `usage` cost, micro-USD (None: the price is unknown).
        #[serde(default)]
        cost_micro_usd: Option<u64>,
    },
    /// The model call failed for good (or its output was invalid and is fed back).
    ModelCallFailed {
        class: ModelErrorClass,
        message: String,
        /// Tokens spent on the failed call (e.g. invalid output still costs).
        usage: TokenUsage,
        /// What `usage` cost, micro-USD (None: the price is unknown).
        #[serde(default)]
        cost_micro_usd: Option<u64>,
    },
    /// The model asked for this tool call (recorded before anything is decided).
    ToolCallRequested {
        call: ToolCall,
        /// The model printed the call as text in this dialect instead of
        /// calling natively, and the loop took it as the call it meant.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parsed_from_text: Option<crate::tool_mode::TextCallDialect>,
    },
    /// The policy asked the user about a call; the run waits.
    ApprovalRequested {
        call_id: CallId,
        tool_name: ToolName,
        summary: String,
    },
    /// The user approved the call (and maybe more: the scope, a command prefix).
    ApprovalGranted {
        call_id: CallId,
        by: String,
        scope: ApprovalScope,
        /// Commands starting with these words are allowed for the rest of
        /// the run (the user's "always allow commands starting with …").
        #[serde(default)]
        allowed_prefix: Option<String>,
        /// A command approved with the network: it gets the network in the
        /// sandbox although the profile keeps it off (this call only; with
        /// `allowed_prefix`, later commands starting with it too).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        network: bool,
    },
    /// The user refused the call; the reason goes to the model.
    ApprovalDenied {
        call_id: CallId,
        by: String,
        scope: ApprovalScope,
        reason: Option<String>,
    },
    /// The call is executing (after policy or approval).
    ToolCallStarted { call_id: CallId },
    /// A write is about to touch `path`; its pre-image is kept as `before_hash`.
    EffectIntended {
        call_id: CallId,
        path: String,
        before_hash: Option<ContentHash>,
    },
    /// The call succeeded; its (bounded) result goes to the model.
    ToolCallCompleted {
        result: ToolResult,
        receipt: Option<Receipt>,
        truncated: bool,
        original_bytes: u64,
    },
    /// The call failed, was refused or denied; the message goes to the model.
    ToolCallFailed { result: ToolResult },
    /// A file the run created, changed or deleted, with its before and after versions.
    ArtifactRecorded {
        call_id: CallId,
        path: String,
        before_hash: Option<ContentHash>,
        after_hash: Option<ContentHash>,
        /// The permission bits (`0o755`) before and after, when a command's
        /// snapshots saw them (file tools keep a file's mode, so they
        /// record none): revert, re-apply and rewind put them back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before_mode: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_mode: Option<u32>,
        /// The hook (its command) that made it; `call_id` is then its call or `hook#SEQ`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by_hook: Option<String>,
    },
    /// Someone else changed a workspace file while the run was live.
    ExternalChangeObserved {
        path: String,
        hash: Option<ContentHash>,
    },
    /// After a crash or an error, the intended write was checked on disk: applied or not.
    EffectVerified {
        call_id: CallId,
        outcome: EffectOutcome,
    },
    /// A write's (or a command's) outcome could not be proven.
    EffectUnknown {
        call_id: CallId,
        path: String,
        detail: String,
    },
    /// The model gave its final answer.
    RunSucceeded { answer: String },
    /// The run ended failed, with the reason.
    RunFailed { reason: String },
    /// The user cancelled the run.
    RunCancelled { reason: Option<String> },
    /// A budget ran out (checked before each call).
    BudgetExhausted { which: BudgetKind },
    /// BearAgent stopped while the run was live; it can be resumed from its events.
    RunInterrupted { reason: String },
    /// An interrupted run continues from its committed events.
    RunResumed,
    /// The model kept printing tool calls as text instead of calling
    /// natively: the rest of the run speaks to it in `to` mode.
    ToolModeSwitched {
        from: crate::tool_mode::ToolMode,
        to: crate::tool_mode::ToolMode,
        reason: String,
    },
    /// The model asked for the same tool with the same arguments again
    /// after `repeats` identical calls returned the same result: this call
    /// was not executed, and the model is told why.
    LoopDetected {
        call_id: CallId,
        tool_name: ToolName,
        repeats: u32,
    },
    /// The context neared the model's window: a compaction call summarised
    /// the conversation through `replaced_through_seq` (the blob `summary`),
    /// and later requests are built from the summary plus what follows.
    /// Its usage counts like any model call's.
    ContextCompacted {
        summary: ContentHash,
        replaced_through_seq: EventSeq,
        tokens_before: u64,
        tokens_after: u64,
        usage: TokenUsage,
        #[serde(default)]
        cost_micro_usd: Option<u64>,
    },
    /// An MCP server started for this run: who answered, and the tools it
    /// offered — exactly what the model is shown from it from now on.
    McpServerStarted {
        server: String,
        server_name: String,
        server_version: String,
        protocol_version: String,
        startup_ms: u64,
        tools: Vec<crate::mcp::McpToolRecord>,
    },
    /// An MCP server could not start, or stopped working during the run:
    /// its tools are unavailable; the run goes on without them.
    McpServerUnavailable { server: String, reason: String },
    /// A command is about to run. `rule` says which command rule allowed
    /// it, or why it was asked about.
    CommandStarted {
        call_id: CallId,
        command: String,
        /// Workspace-relative working directory ("." for the root).
        cwd: String,
        /// False only when the profile turned the sandbox off.
        sandboxed: bool,
        network: bool,
        rule: String,
    },
    /// The command ended. Its output (merged stdout/stderr, head and tail
    /// kept up to the stored cap) is the blob `output`; every file it
    /// created, changed or deleted follows as an `ArtifactRecorded`.
    CommandFinished {
        call_id: CallId,
        exit_code: Option<i32>,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
        duration_ms: u64,
        output: Option<ContentHash>,
        /// Every byte it wrote, including any cut from the stored output.
        output_bytes: u64,
        output_truncated: bool,
        timed_out: bool,
        cancelled: bool,
        /// Files in the workspace it changed (each an artifact).
        changed_files: u32,
        /// Changed files whose earlier version was too large to keep, so they cannot be reverted.
        #[serde(default)]
        unrevertable_files: u32,
        /// The sandbox had no network, the command failed and its output
        /// reads like a refused network access: renderers name the setting that allows it.
        #[serde(default, skip_serializing_if = "is_false")]
        network_refused: bool,
        /// Workspace folders (relative, `/`) that did not exist before the
        /// command and do after, the topmost of each tree: a revert that
        /// leaves one, or a folder below it, empty removes it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        created_dirs: Vec<String>,
        /// Folders that existed before and not after (topmost): a
        /// re-apply that leaves one empty removes it again.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        removed_dirs: Vec<String>,
        /// Folders (and files) whose contents are not tracked — build
        /// output, dependencies, what is past the safety net's limits —
        /// that the command made, removed or changed: what is in them
        /// cannot be restored, and renderers say so.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        not_tracked: Vec<crate::commands::NotTracked>,
    },
    /// The user put a file back to how it was before the run.
    ArtifactReverted {
        path: String,
        /// What the file holds now (None: the run created it, so it was removed).
        restored_hash: Option<ContentHash>,
        /// What the revert replaced, saved as a blob so it can be undone.
        replaced_hash: Option<ContentHash>,
        /// The file no longer held the run's version and the user chose to revert anyway.
        forced: bool,
    },
    /// The user undid a revert: the run's version is back.
    ArtifactReapplied {
        path: String,
        restored_hash: Option<ContentHash>,
        replaced_hash: Option<ContentHash>,
    },
    /// The user reverted some hunks of the run's change to a file (numbered
    /// from 1 in the diff from before the run to what the file held); the others stay.
    ArtifactHunksReverted {
        path: String,
        hunks: Vec<u32>,
        /// The reverted hunks as a unified diff (cut to a few KB): what a
        /// follow-up's model is told the user threw away.
        #[serde(default)]
        diff: String,
        /// What the file holds now: the run's change without those hunks.
        restored_hash: Option<ContentHash>,
        replaced_hash: Option<ContentHash>,
    },
    /// The user reviewed a file and kept the run's version.
    ArtifactKept { path: String },
    /// The user kept some hunks of the run's change to a file (numbered
    /// from 1 in the diff from before the run to what the file held):
    /// reviewed, nothing on disk changes; the others are still undecided.
    ArtifactHunksKept {
        path: String,
        hunks: Vec<u32>,
        /// The kept hunks as a unified diff (cut to a few KB): what a
        /// follow-up's model is told the user accepted.
        #[serde(default)]
        diff: String,
    },
    /// The user edited the run's version of a file and kept their edit:
    /// the file holds `restored_hash`, the user's change, not the run's.
    ArtifactEdited {
        path: String,
        /// The user's change to the run's version as a unified diff (cut
        /// to a few KB): what a follow-up's model is told.
        #[serde(default)]
        diff: String,
        restored_hash: Option<ContentHash>,
        replaced_hash: Option<ContentHash>,
    },
    /// The user rewound the run's files to how they were at event `to`
    /// (`redo`: undid the last rewind). Each file in `paths` follows as a
    /// `ReviewIntended` and its outcome (`ArtifactRewound` or
    /// `ReviewAbandoned`), guarded like a revert.
    RewindStarted {
        to: EventSeq,
        redo: bool,
        paths: Vec<String>,
    },
    /// A file of a rewind holds `restored_hash`: the run's version at
    /// event `to` (or, for a redo, what the rewind replaced).
    ArtifactRewound {
        path: String,
        to: EventSeq,
        redo: bool,
        restored_hash: Option<ContentHash>,
        replaced_hash: Option<ContentHash>,
        forced: bool,
    },
    /// A revert or re-apply is about to change a file (DESIGN principle 10:
    /// intent before the disk): what it will put there, and what it
    /// replaces, saved first. Its outcome follows: `ArtifactReverted` /
    /// `ArtifactReapplied` once the file holds `restored_hash`, or
    /// `ReviewAbandoned`.
    ReviewIntended {
        path: String,
        action: ReviewAction,
        restored_hash: Option<ContentHash>,
        replaced_hash: Option<ContentHash>,
        forced: bool,
        /// With `RevertHunks`: which hunks (numbered from 1).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hunks: Vec<u32>,
        /// With `Rewind` and `Redo`: the event the run is rewound to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rewound_to: Option<EventSeq>,
    },
    /// An intended revert or re-apply did not take effect: writing the
    /// file failed, or the process stopped before and the file still holds
    /// what it replaced — or, after a crash, neither version (nothing is
    /// assumed; the review stays as it was).
    ReviewAbandoned { path: String, reason: String },
    /// The model's todo list as `update_plan` left it (replacing the last).
    TodoUpdated { items: Vec<crate::todo::TodoItem> },
    /// The run's worktree was applied to the main checkout: files written
    /// as the worktree holds them (`applied`), merged three-way with the
    /// main checkout's own changes (`merged`), or refused by name.
    WorktreeApplied {
        applied: Vec<String>,
        merged: Vec<String>,
        refused: Vec<crate::worktree::WorktreeRefusal>,
    },
    /// The run's worktree folder and branch were removed: `discarded`
    /// (its changes thrown away by the user) or pruned after it was applied.
    WorktreeRemoved { discarded: bool },
    /// A step of writing the main checkout for the run's worktree: an
    /// apply's or undo's intent, its outcome, or a removal's intent.
    WorktreeStep { step: crate::worktree::WorktreeStep },
    /// One of the user's hooks ran: at which moment, from where, its exit
    /// code, how long, what it decided, and its output (bounded). On the
    /// call it decided when `call_id` is set.
    HookRan {
        hook: crate::hook::HookEvent,
        source: crate::hook::HookSource,
        command: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<CallId>,
        exit_code: Option<i32>,
        #[serde(default, skip_serializing_if = "is_false")]
        timed_out: bool,
        duration_ms: u64,
        decision: crate::hook::HookDecision,
        /// Why it decided so (shown to the user).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// What the model reads of it, after the event it followed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        for_model: Option<String>,
        /// Something went wrong with the hook itself (a timeout, an exit
        /// code other than 0 or 2, unreadable JSON); the run went on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warning: Option<String>,
        stdout: String,
        stderr: String,
    },
    /// The workspace has project hooks the user has not trusted (or that
    /// changed since): they did not run. Recorded once, at the run's start.
    HooksNotTrusted {
        file: String,
        content_hash: ContentHash,
        commands: Vec<String>,
    },
    /// A `web_fetch` got an answer (any status); its raw body is a blob.
    /// The tool's result (the text the model read) follows.
    WebFetched {
        call_id: CallId,
        fetch: crate::web::WebFetchRecord,
    },
    /// A `web_fetch` got no answer; the failed tool result follows.
    WebFetchFailed {
        call_id: CallId,
        failure: crate::web::WebFailure,
    },
}
