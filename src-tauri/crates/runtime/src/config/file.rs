//! The config file's shape (TOML, version 1): providers and run profiles,
//! and how it fails. Reading and writing it is `load.rs`; its rules across
//! fields are `validate.rs`.

use bearagent_providers::{Protocol, ToolMode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const CONFIG_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: field `{field}`: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
    #[error(
        "{path} is config version {found}, newer than this BearAgent understands ({CONFIG_VERSION}); \
         it was left untouched — use a newer BearAgent"
    )]
    NewerVersion { path: PathBuf, found: u32 },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A config error naming the field it is about.
pub(super) fn invalid(path: &Path, field: String, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        field,
        message: message.into(),
    }
}

/// Where a provider's API key comes from. Never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(untagged)]
pub enum KeySource {
    /// `key = "keychain"` or `key = "none"`.
    Named(NamedKeySource),
    /// `key = { env = "VARIABLE" }`.
    Env { env: String },
    #[default]
    #[serde(skip)]
    Unset,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NamedKeySource {
    Keychain,
    None,
}

/// `price = { input_per_mtok = 3.0, output_per_mtok = 15.0 }`: USD per
/// million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceEntry {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
}

impl PriceEntry {
    pub fn to_price(self) -> Result<bearagent_kernel::Price, bearagent_kernel::PriceError> {
        bearagent_kernel::Price::from_usd_per_mtok(
            self.input_per_mtok,
            self.output_per_mtok,
            self.cached_input_per_mtok,
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    pub protocol: Protocol,
    pub base_url: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "is_unset")]
    pub key: KeySource,
    /// `native` (default) or `json-text` for models without tool calling.
    #[serde(default, skip_serializing_if = "is_native")]
    pub tool_mode: ToolMode,
    /// None: runs with this provider have an unknown cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceEntry>,
    /// Tokens the model reads at most (None: its family's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The model reads images (None: its family's default; JSON-text mode
    /// never sends them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
    /// The local server it is (`llama.cpp`, `ollama`, `lm-studio`, `vllm`,
    /// `openai-compatible`; written by `providers detect --add`): asked at
    /// each run's start for the window and tool support, and its usage
    /// reports checked for a prompt it cut silently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<bearagent_providers::local::ServerKind>,
}

fn is_unset(k: &KeySource) -> bool {
    *k == KeySource::Unset
}

fn is_native(m: &ToolMode) -> bool {
    *m == ToolMode::Native
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ProfileEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// ask | reads | all
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall_time_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_result_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_invalid_outputs: Option<u32>,
    /// `"full"` or `"compact"` (unset: compact when the model's window is
    /// 16 k tokens or less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_profile: Option<String>,
    /// Identical calls with identical results before the next is refused
    /// as a loop; 0 turns loop detection off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repeated_calls: Option<u32>,
    /// Spend limit in USD (needs a priced provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
    /// `"on"` (default: commands run in the bubblewrap sandbox) or `"off"`
    /// (no sandbox; every command asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Network inside the sandbox (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
    /// The longest one command may run, in seconds (default 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_timeout_secs: Option<u32>,
    /// Folders under the home folder commands may read (replaces the
    /// defaults: .cargo, .rustup, .npm, .cache/pip, .local/lib, .local/bin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolchain_dirs: Option<Vec<String>>,
    /// Environment variables passed into commands, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_env: Option<Vec<String>>,
    /// `[{ prefix = "cargo test", decision = "allow" }, …]`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_rules: Option<Vec<bearagent_kernel::CommandRule>>,
    /// Compact the context when a request would pass this share of the
    /// model's window (0.1 to 0.99; default 0.85).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_at: Option<f64>,
    /// `false`: never compact; a run whose context outgrows the window fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact: Option<bool>,
    /// `{ everything = "ask", "everything.echo" = "allow" }`: per MCP
    /// server or tool (the server's own tool name), beats the tool's hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_rules: Option<bearagent_kernel::McpRules>,
    /// `true`: runs may hand tasks to helper runs (the `task` tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegate: Option<bool>,
    /// How deep helpers may nest (1 to 4; default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_depth: Option<u32>,
    /// The share of what a run has left that one helper reserves, in
    /// percent (1 to 90; default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_share: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub version: u32,
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderEntry>,
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileEntry>,
    /// MCP servers whose tools runs may use.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, super::mcp::McpServerEntry>,
    /// Where runs' git worktrees are made (None: `worktrees/` in the data
    /// folder). Never inside a repository they are made of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktrees_dir: Option<std::path::PathBuf>,
    /// Command prefixes the user allowed from an approval and asked to
    /// remember beyond the run (kept here, never in a workspace).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remembered_commands: Vec<RememberedCommand>,
    /// `[[hooks.PreToolUse]]` …: the user's own hooks, for every run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hooks: crate::hooks::HooksTable,
    /// Project hooks files the user trusted, by workspace and exact
    /// content (a changed file is untrusted again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted_hooks: Vec<TrustedHooks>,
    /// `[web]`: what `web_fetch` may reach and the per-domain rules.
    #[serde(default, skip_serializing_if = "is_default_web")]
    pub web: super::web::WebEntry,
}

fn is_default_web(web: &super::web::WebEntry) -> bool {
    *web == super::web::WebEntry::default()
}

/// A workspace's `.bearagent/hooks.toml`, trusted as it was when the user
/// read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedHooks {
    /// The workspace folder (a worktree run's main checkout).
    pub workspace: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// When, RFC 3339.
    pub at: String,
}

/// "Always allow commands starting with PREFIX", remembered from an
/// approval: for one workspace (its folder) or every workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RememberedCommand {
    pub prefix: String,
    /// The commands get the network in the sandbox.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
    /// The workspace folder it holds for; absent: every workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The run whose approval it was remembered from.
    pub from_run: String,
    /// When, RFC 3339.
    pub at: String,
}

impl RememberedCommand {
    /// A stable id (12 hex digits of a hash of what the rule is and when it
    /// was made): what `forget` takes, so a list that shifted between
    /// reading and forgetting never removes the wrong rule.
    pub fn id(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for part in [
            self.prefix.as_str(),
            if self.network { "network" } else { "" },
            self.workspace.as_deref().unwrap_or(""),
            self.from_run.as_str(),
            self.at.as_str(),
        ] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.finalize()[..6]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl Default for ConfigFile {
    fn default() -> Self {
        Self {
            version: CONFIG_VERSION,
            providers: BTreeMap::new(),
            profiles: BTreeMap::new(),
            mcp_servers: BTreeMap::new(),
            worktrees_dir: None,
            remembered_commands: Vec::new(),
            hooks: BTreeMap::new(),
            trusted_hooks: Vec::new(),
            web: Default::default(),
        }
    }
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
