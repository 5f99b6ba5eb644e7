//! How a run may run commands: the sandbox, the network, the toolchain
//! folders it may read, and the user's command rules. Recorded in
//! `RunCreated`, so every approval and replay knows what was in force.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a command rule decides. Ordered by strictness: when several simple
/// commands of one command line match, the strictest decision wins.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    /// Commands only: allowed, and given the network in the sandbox even
    /// when the profile keeps it off (`cargo fetch`, `npm install`). Less
    /// strict than `allow`, so a command line gets the network only when
    /// every command in it is decided by such a rule.
    #[serde(rename = "allow-network")]
    AllowNetwork,
    Allow,
    Ask,
    Deny,
}

impl RuleDecision {
    /// The config's spelling: `allow-network`, `allow`, `ask`, `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::AllowNetwork => "allow-network",
            RuleDecision::Allow => "allow",
            RuleDecision::Ask => "ask",
            RuleDecision::Deny => "deny",
        }
    }

    /// Runs without asking (with or without the network).
    pub fn allows(self) -> bool {
        match self {
            RuleDecision::AllowNetwork | RuleDecision::Allow => true,
            RuleDecision::Ask | RuleDecision::Deny => false,
        }
    }
}

impl fmt::Display for RuleDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A path in the workspace whose contents a command's snapshots leave out,
/// and what the command did to it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotTracked {
    /// Workspace-relative, `/`; a folder ends with `/`.
    pub path: String,
    pub why: NotTrackedWhy,
    pub change: NotTrackedChange,
    /// What a folder the command made or changed holds after it (a
    /// removed one is gone; events before this field have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<TreeSize>,
}

/// Files and bytes under a folder, counted up to a cap.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeSize {
    pub files: u64,
    pub bytes: u64,
    /// Counting stopped at the cap: there is at least this much.
    pub at_least: bool,
}

impl fmt::Display for TreeSize {
    /// `1 200 files, 800.0 MB` (`at least …` past the cap).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at_least = if self.at_least { "at least " } else { "" };
        write!(
            f,
            "{at_least}{}, {}",
            crate::units::plural(self.files, "file", "files"),
            crate::units::human_bytes(self.bytes)
        )
    }
}

/// Why a path's contents are not tracked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotTrackedWhy {
    /// Tagged by a `CACHEDIR.TAG` (cargo's `target/`, …).
    BuildOutput,
    /// An ignored folder of dependencies, caches or build output by its
    /// name (`node_modules`, `.venv`, `dist`, …).
    Dependencies,
    /// Ignored, and past the limits of what the safety net keeps.
    OverLimit,
}

impl NotTrackedWhy {
    pub fn as_str(self) -> &'static str {
        match self {
            NotTrackedWhy::BuildOutput => "build output",
            NotTrackedWhy::Dependencies => "dependencies or caches",
            NotTrackedWhy::OverLimit => "past the safety net's limits",
        }
    }
}

/// "; not tracked, so not restorable: target/ made (build output), …" —
/// empty when the list is.
pub fn not_tracked_note(list: &[NotTracked]) -> String {
    if list.is_empty() {
        return String::new();
    }
    let items: Vec<String> = list
        .iter()
        .take(10)
        .map(|n| match n.size {
            Some(size) => format!(
                "{} {} ({}, {size})",
                n.path,
                n.change.as_str(),
                n.why.as_str()
            ),
            None => format!("{} {} ({})", n.path, n.change.as_str(), n.why.as_str()),
        })
        .collect();
    let more = match list.len().saturating_sub(items.len()) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "; not tracked, so not restorable: {}{more}",
        items.join(", ")
    )
}

impl NotTrackedChange {
    pub fn as_str(self) -> &'static str {
        match self {
            NotTrackedChange::Made => "made",
            NotTrackedChange::Removed => "removed",
            NotTrackedChange::Changed => "changed",
        }
    }
}

/// What the command did to a path that is not tracked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotTrackedChange {
    Made,
    Removed,
    Changed,
}

/// `{ prefix = "cargo test", decision = "allow" }`: a simple command whose
/// words start with the prefix's words gets the decision.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRule {
    pub prefix: String,
    pub decision: RuleDecision,
}

/// The command settings of a run.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSettings {
    /// False only when the profile says `sandbox = "off"`: then every
    /// command asks, and the run and each approval say so.
    pub sandbox: bool,
    /// Network access inside the sandbox (off by default).
    pub network: bool,
    /// The longest any one command may run, in seconds.
    pub max_timeout_secs: u32,
    /// Folders under the home folder a command may read (toolchains).
    pub toolchain_dirs: Vec<String>,
    /// Names of environment variables passed into commands (values are
    /// read when the command starts, never recorded).
    pub env: Vec<String>,
    pub rules: Vec<CommandRule>,
}

/// Toolchain folders readable by default: Rust, Node and Python caches.
pub const DEFAULT_TOOLCHAIN_DIRS: [&str; 6] = [
    ".cargo",
    ".rustup",
    ".npm",
    ".cache/pip",
    ".local/lib",
    ".local/bin",
];

impl Default for CommandSettings {
    fn default() -> Self {
        Self {
            sandbox: true,
            network: false,
            max_timeout_secs: 600,
            toolchain_dirs: DEFAULT_TOOLCHAIN_DIRS
                .iter()
                .map(|d| (*d).to_owned())
                .collect(),
            env: Vec::new(),
            rules: Vec::new(),
        }
    }
}
