//! A workspace's project hooks as the trust prompt shows them.

use serde::Serialize;

/// `.bearagent/hooks.toml` of a workspace: each command it would run, and
/// whether the user trusted exactly these bytes.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProjectHooksView {
    pub file: String,
    /// The digest `trust_project_hooks` pins: SHA-256 over `pinned`.
    pub sha256: String,
    /// The files trusting covers: hooks.toml, all of `.bearagent/`, and the
    /// workspace files a hook's command names (workspace-relative).
    pub pinned: Vec<String>,
    pub hooks: Vec<ProjectHookView>,
    pub trusted: bool,
    /// Why the file never runs, even trusted (unreadable, not plain hooks).
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProjectHookView {
    /// SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact
    /// or Stop.
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: u32,
}

impl From<bearagent_runtime::hooks::ProjectHooks> for ProjectHooksView {
    fn from(p: bearagent_runtime::hooks::ProjectHooks) -> Self {
        Self {
            file: p.file,
            sha256: p.sha256,
            pinned: p.pinned,
            hooks: p
                .hooks
                .into_iter()
                .map(|h| ProjectHookView {
                    event: h.event,
                    matcher: h.matcher,
                    command: h.command,
                    timeout_secs: h.timeout_secs,
                })
                .collect(),
            trusted: p.trusted,
            error: p.error,
        }
    }
}
