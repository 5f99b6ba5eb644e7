//! Hooks: the user's own commands run at fixed moments of a run, with
//! Claude Code's names and stdin/stdout contract, so existing hook scripts
//! work unchanged. Each run of one is a `HookRan` event; project hooks the
//! user has not trusted never run (`HooksNotTrusted`, once per run).

use serde::{Deserialize, Serialize};

/// The moments a hook runs at.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HookEvent {
    /// A new run begins (matcher: `startup`).
    SessionStart,
    /// The goal is about to reach the model; a hook may block it.
    UserPromptSubmit,
    /// Before a tool call is decided: allow, deny or ask.
    PreToolUse,
    /// After a tool call succeeded; feedback reaches the model.
    PostToolUse,
    /// Before the context is compacted (matcher: `auto` or `manual`).
    PreCompact,
    /// The model gave its final answer; a hook may send it back to work.
    Stop,
}

impl HookEvent {
    pub const ALL: [HookEvent; 6] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PreCompact,
        HookEvent::Stop,
    ];

    /// The name in config files and in a hook's input (`hook_event_name`).
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Stop => "Stop",
        }
    }

    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Where a hook was configured.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookSource {
    /// The user's own config file.
    User,
    /// The workspace's `.bearagent/hooks.toml`, trusted by the user.
    Project,
}

/// What a hook's run decided.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// Nothing: the run goes on as it would have.
    Proceed,
    /// PreToolUse: run the call without asking (never past a deny).
    Allow,
    /// PreToolUse: ask the user, even where the policy would allow.
    Ask,
    /// PreToolUse: refuse the call; the reason reaches the model.
    Deny,
    /// Stop, PostToolUse or UserPromptSubmit: blocked, with a reason.
    Block,
}

impl HookDecision {
    pub fn name(self) -> &'static str {
        match self {
            HookDecision::Proceed => "proceed",
            HookDecision::Allow => "allow",
            HookDecision::Ask => "ask",
            HookDecision::Deny => "deny",
            HookDecision::Block => "block",
        }
    }
}

/// Bytes of a hook's stdout and of its stderr kept in its event.
pub const HOOK_OUTPUT_CAP: usize = 4 * 1024;
