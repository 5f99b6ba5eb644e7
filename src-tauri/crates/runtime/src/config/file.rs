//! The config file (TOML, version 1): providers and run profiles. Unknown
//! keys and bad values are errors naming the file, line and field; a file
//! written by a newer BearAgent is refused and never rewritten.

use bearagent_kernel::ApprovalMode;
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
}

impl Default for ConfigFile {
    fn default() -> Self {
        Self {
            version: CONFIG_VERSION,
            providers: BTreeMap::new(),
            profiles: BTreeMap::new(),
            mcp_servers: BTreeMap::new(),
        }
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The dotted name of the key assigned on `line` (1-based), prefixed by
/// the table it sits in, e.g. `profiles.careful.max_model_calls`.
fn field_at_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let (key, _) = here.split_once('=')?;
    let table = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    let key = key.trim();
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_owned(),
    })
}

#[derive(Deserialize)]
struct VersionOnly {
    version: Option<toml::Value>,
}

/// Parses and validates config text. `path` is only for messages.
pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    // Check the version first, so a newer file's new keys are not reported
    // as mistakes.
    if let Ok(VersionOnly { version: Some(v) }) = toml::from_str::<VersionOnly>(text) {
        if let Some(found) = v.as_integer() {
            if found > i64::from(CONFIG_VERSION) {
                return Err(ConfigError::NewerVersion {
                    path: path.to_path_buf(),
                    found: u32::try_from(found).unwrap_or(u32::MAX),
                });
            }
        }
    }
    let config: ConfigFile = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
        let message = match field_at_line(text, line) {
            Some(field) => format!("field `{field}`: {}", e.message()),
            None => e.message().to_owned(),
        };
        ConfigError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    })?;
    validate(path, &config)?;
    Ok(config)
}

fn invalid(path: &Path, field: String, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        field,
        message: message.into(),
    }
}

/// Rules across fields that serde cannot express.
pub fn validate(path: &Path, config: &ConfigFile) -> Result<(), ConfigError> {
    if config.version != CONFIG_VERSION {
        return Err(invalid(
            path,
            "version".into(),
            format!("must be {CONFIG_VERSION}"),
        ));
    }
    for (name, p) in &config.providers {
        let field = |f: &str| format!("providers.{name}.{f}");
        if name.trim().is_empty() || name == "demo" || name == "script" {
            return Err(invalid(
                path,
                format!("providers.{name}"),
                "this provider name is reserved or blank",
            ));
        }
        if !(p.base_url.starts_with("http://") || p.base_url.starts_with("https://")) {
            return Err(invalid(
                path,
                field("base_url"),
                "must start with http:// or https://",
            ));
        }
        if p.model.trim().is_empty() {
            return Err(invalid(path, field("model"), "must not be empty"));
        }
        match &p.key {
            KeySource::Env { env } if env.trim().is_empty() => {
                return Err(invalid(path, field("key"), "env must name a variable"))
            }
            KeySource::Unset => {
                return Err(invalid(
                    path,
                    field("key"),
                    "is required: \"keychain\", \"none\" or { env = \"VARIABLE\" }",
                ))
            }
            _ => {}
        }
        if let Some(price) = p.price {
            price
                .to_price()
                .map_err(|e| invalid(path, field("price"), e.to_string()))?;
        }
        if let Some(window) = p.context_window {
            if !(1_000..=10_000_000).contains(&window) {
                return Err(invalid(
                    path,
                    field("context_window"),
                    format!("must be between 1000 and 10000000 tokens, got {window}"),
                ));
            }
        }
    }
    for (name, server) in &config.mcp_servers {
        super::mcp::validate_server(name, server)
            .map_err(|(field, message)| invalid(path, field, message))?;
    }
    for (name, profile) in &config.profiles {
        let field = |f: &str| format!("profiles.{name}.{f}");
        if let Some(provider) = &profile.provider {
            let known = config.providers.contains_key(provider)
                || provider == "demo"
                || provider.parse::<Protocol>().is_ok();
            if !known {
                return Err(invalid(
                    path,
                    field("provider"),
                    format!("no provider named {provider:?}"),
                ));
            }
        }
        if let Some(mode) = &profile.approval {
            mode.parse::<ApprovalMode>()
                .map_err(|e| invalid(path, field("approval"), e.to_string()))?;
        }
        let positive = [
            ("max_model_calls", profile.max_model_calls.map(u64::from)),
            ("max_tool_calls", profile.max_tool_calls.map(u64::from)),
            ("max_input_tokens", profile.max_input_tokens),
            ("max_output_tokens", profile.max_output_tokens),
            ("max_wall_time_secs", profile.max_wall_time_secs),
            (
                "max_context_bytes",
                profile.max_context_bytes.map(u64::from),
            ),
            (
                "max_tool_result_bytes",
                profile.max_tool_result_bytes.map(u64::from),
            ),
        ];
        for (f, v) in positive {
            if v == Some(0) {
                return Err(invalid(path, field(f), "must be greater than 0"));
            }
        }
        if let Some(usd) = profile.max_cost {
            max_cost_micro_usd(usd).map_err(|e| invalid(path, field("max_cost"), e))?;
        }
        if let Some(share) = profile.compact_at {
            compact_at_permille(share).map_err(|e| invalid(path, field("compact_at"), e))?;
        }
        validate_commands(profile).map_err(|(f, e)| invalid(path, field(f), e))?;
    }
    Ok(())
}

/// The command settings of a profile: a known sandbox switch, a timeout
/// above 0, plain relative toolchain folders, variable names and rules
/// with a prefix.
fn validate_commands(p: &ProfileEntry) -> Result<(), (&'static str, String)> {
    if let Some(s) = &p.sandbox {
        if s != "on" && s != "off" {
            return Err(("sandbox", format!("must be \"on\" or \"off\", got {s:?}")));
        }
    }
    if p.command_timeout_secs == Some(0) {
        return Err(("command_timeout_secs", "must be greater than 0".into()));
    }
    for dir in p.toolchain_dirs.iter().flatten() {
        let path = Path::new(dir);
        let plain = !dir.trim().is_empty()
            && path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain {
            return Err((
                "toolchain_dirs",
                format!("{dir:?} must be a folder under the home folder, like \".cargo\""),
            ));
        }
    }
    for name in p.command_env.iter().flatten() {
        if !super::mcp::is_variable_name(name) {
            return Err(("command_env", format!("{name:?} is not a variable name")));
        }
    }
    for rule in p.command_rules.iter().flatten() {
        bearagent_tools::command::rules::validate_rule(rule).map_err(|e| ("command_rules", e))?;
    }
    for key in p.mcp_rules.iter().flat_map(|r| r.keys()) {
        let server = key.split_once('.').map_or(key.as_str(), |(s, _)| s);
        let tool_ok = key.split_once('.').is_none_or(|(_, t)| !t.is_empty());
        let server_ok = !server.is_empty()
            && server
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !(server_ok && tool_ok) {
            return Err((
                "mcp_rules",
                format!("{key:?} must be a server name or \"server.tool\""),
            ));
        }
    }
    Ok(())
}

/// `compact_at` (a share of the window) in per mille: 0.1 to 0.99.
pub fn compact_at_permille(share: f64) -> Result<u16, String> {
    if share.is_finite() && (0.1..=0.99).contains(&share) {
        Ok((share * 1000.0).round() as u16)
    } else {
        Err(format!(
            "must be between 0.1 and 0.99 of the window, got {share}"
        ))
    }
}

/// A spend limit in USD as micro-USD: a positive, finite amount.
pub fn max_cost_micro_usd(usd: f64) -> Result<u64, String> {
    match bearagent_kernel::usd_to_micro("max_cost", usd) {
        Ok(micro) if micro > 0 => Ok(micro),
        Ok(_) => Err(format!(
            "must be more than 0 USD (got {usd}); leave it out for no cost limit"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Reads the config; a missing file is an empty config.
pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Validates and writes the config atomically (temp file + rename).
pub fn save(path: &Path, config: &ConfigFile) -> Result<(), ConfigError> {
    validate(path, config)?;
    // Never overwrite a file from a newer BearAgent.
    load(path)?;
    let io = |source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = toml::to_string_pretty(config)
        .map_err(|e| invalid(path, "(file)".into(), e.to_string()))?;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = dir.join(format!(".config.toml.{}.tmp", std::process::id()));
    std::fs::write(&tmp, format!("# BearAgent configuration (version {CONFIG_VERSION}). Keys are never stored here.\n{text}"))
        .map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
