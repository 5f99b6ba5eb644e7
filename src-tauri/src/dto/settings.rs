//! IPC types of Settings. Keys never cross: only whether one is present.

use super::{ApiError, ErrorCode};
use bearagent_kernel::{ApprovalMode, Budgets, CommandSettings, ContextCaps};
use bearagent_runtime::config::{
    KeySource, NamedKeySource, PriceEntry, ProfileEntry, ProviderEntry,
};
use bearagent_runtime::{Protocol, ProviderTest, RunProfile, Settings, ToolMode};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum KeySourceView {
    Keychain,
    Env { variable: String },
    None,
}

impl From<&KeySource> for KeySourceView {
    fn from(k: &KeySource) -> Self {
        match k {
            KeySource::Named(NamedKeySource::Keychain) => KeySourceView::Keychain,
            KeySource::Env { env } => KeySourceView::Env {
                variable: env.clone(),
            },
            KeySource::Named(NamedKeySource::None) | KeySource::Unset => KeySourceView::None,
        }
    }
}

impl From<KeySourceView> for KeySource {
    fn from(k: KeySourceView) -> Self {
        match k {
            KeySourceView::Keychain => KeySource::Named(NamedKeySource::Keychain),
            KeySourceView::Env { variable } => KeySource::Env { env: variable },
            KeySourceView::None => KeySource::Named(NamedKeySource::None),
        }
    }
}

/// How tools reach the model: the protocol's own tool calling, or JSON
/// text described in the prompt (for models without tool calling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum ToolModeView {
    Native,
    JsonText,
}

impl From<ToolMode> for ToolModeView {
    fn from(m: ToolMode) -> Self {
        match m {
            ToolMode::Native => ToolModeView::Native,
            ToolMode::JsonText => ToolModeView::JsonText,
        }
    }
}

impl From<ToolModeView> for ToolMode {
    fn from(m: ToolModeView) -> Self {
        match m {
            ToolModeView::Native => ToolMode::Native,
            ToolModeView::JsonText => ToolMode::JsonText,
        }
    }
}

/// The wire protocol a provider speaks (the config's spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolView {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    OllamaChat,
}

impl From<Protocol> for ProtocolView {
    fn from(p: Protocol) -> Self {
        match p {
            Protocol::OpenAiChat => ProtocolView::OpenaiChat,
            Protocol::OpenAiResponses => ProtocolView::OpenaiResponses,
            Protocol::Anthropic => ProtocolView::Anthropic,
            Protocol::OllamaChat => ProtocolView::OllamaChat,
        }
    }
}

impl From<ProtocolView> for Protocol {
    fn from(p: ProtocolView) -> Self {
        match p {
            ProtocolView::OpenaiChat => Protocol::OpenAiChat,
            ProtocolView::OpenaiResponses => Protocol::OpenAiResponses,
            ProtocolView::Anthropic => Protocol::Anthropic,
            ProtocolView::OllamaChat => Protocol::OllamaChat,
        }
    }
}

/// USD per million tokens, as the config file holds it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PriceView {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    pub cached_input_per_mtok: Option<f64>,
}

impl From<PriceEntry> for PriceView {
    fn from(p: PriceEntry) -> Self {
        Self {
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
            cached_input_per_mtok: p.cached_input_per_mtok,
        }
    }
}

impl From<PriceView> for PriceEntry {
    fn from(p: PriceView) -> Self {
        Self {
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
            cached_input_per_mtok: p.cached_input_per_mtok,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInput {
    pub name: String,
    pub protocol: ProtocolView,
    pub base_url: String,
    pub model: String,
    pub key_source: KeySourceView,
    pub tool_mode: ToolModeView,
    /// None: runs with this provider have an unknown cost.
    pub price: Option<PriceView>,
    /// Tokens the model reads at most (None: its family's default).
    #[serde(default)]
    pub context_window: Option<u64>,
    /// The model reads images (None: its family's default).
    #[serde(default)]
    pub vision: Option<bool>,
}

impl ProviderInput {
    pub fn into_entry(self) -> Result<(String, ProviderEntry), ApiError> {
        let protocol = self.protocol.into();
        if self.name.trim().is_empty() {
            return Err(ApiError::new(ErrorCode::InvalidInput, "name: required"));
        }
        Ok((
            self.name,
            ProviderEntry {
                protocol,
                base_url: self.base_url.trim().to_owned(),
                model: self.model.trim().to_owned(),
                key: self.key_source.into(),
                tool_mode: self.tool_mode.into(),
                price: self.price.map(PriceEntry::from),
                context_window: self.context_window,
                vision: self.vision,
                server: None,
            },
        ))
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    pub name: String,
    pub protocol: ProtocolView,
    pub base_url: String,
    pub model: String,
    pub key_source: KeySourceView,
    pub key_present: bool,
    pub tool_mode: ToolModeView,
    pub price: Option<PriceView>,
    /// Tokens the model reads at most (absent: its family's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The model reads images (absent: its family's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProfileView {
    pub name: String,
    pub provider: Option<String>,
    pub approval_mode: ApprovalMode,
    pub budgets: Budgets,
    pub context_caps: ContextCaps,
    /// Sandbox, network, toolchain folders and command rules.
    pub commands: CommandSettings,
    /// Per MCP server (`server`) or tool (`server.tool`): allow/ask/deny.
    pub mcp_rules: bearagent_kernel::McpRules,
    /// Helpers (config `delegate`, depth and share): kept as they are when
    /// the profile is saved (absent: the profile's runs do not delegate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<bearagent_kernel::Delegation>,
}

impl ProfileView {
    pub fn from_profile(p: RunProfile, provider: Option<String>) -> Self {
        Self {
            name: p.name,
            provider,
            approval_mode: p.approval_mode,
            budgets: p.budgets,
            context_caps: p.context,
            commands: p.commands,
            mcp_rules: p.mcp_rules,
            delegation: p.delegation,
        }
    }

    pub fn into_entry(self) -> (String, ProfileEntry) {
        let b = self.budgets;
        (
            self.name,
            ProfileEntry {
                provider: self.provider.filter(|p| !p.is_empty()),
                model: None,
                approval: Some(self.approval_mode.config_name().into()),
                max_model_calls: Some(b.max_model_calls),
                max_tool_calls: Some(b.max_tool_calls),
                max_input_tokens: Some(b.max_input_tokens),
                max_output_tokens: Some(b.max_output_tokens),
                max_wall_time_secs: Some(b.max_wall_time_ms.div_ceil(1000)),
                max_context_bytes: Some(self.context_caps.max_context_bytes),
                max_tool_result_bytes: Some(self.context_caps.max_tool_result_bytes),
                max_invalid_outputs: None,
                max_repeated_calls: None,
                context_profile: None,
                // Micro-USD back to the USD the file holds (exact for any
                // amount a person types).
                max_cost: b.max_cost_micro_usd.map(|m| m as f64 / 1_000_000.0),
                sandbox: Some(if self.commands.sandbox { "on" } else { "off" }.into()),
                network: Some(self.commands.network),
                command_timeout_secs: Some(self.commands.max_timeout_secs),
                toolchain_dirs: Some(self.commands.toolchain_dirs),
                command_env: Some(self.commands.env),
                command_rules: Some(self.commands.rules),
                compact: Some(self.context_caps.compact_at_permille.is_some()),
                compact_at: self
                    .context_caps
                    .compact_at_permille
                    .map(|p| f64::from(p) / 1000.0),
                mcp_rules: Some(self.mcp_rules).filter(|r| !r.is_empty()),
                delegate: self.delegation.map(|_| true),
                delegation_depth: self.delegation.map(|d| d.max_depth),
                delegation_share: self.delegation.map(|d| d.share_percent),
            },
        )
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub config_path: String,
    pub providers: Vec<ProviderView>,
    pub profiles: Vec<ProfileView>,
    pub mcp_servers: Vec<super::mcp::McpServerView>,
}

impl From<Settings> for SettingsView {
    fn from(settings: Settings) -> Self {
        let profiles = settings
            .resolved_profiles
            .into_iter()
            .map(|(profile, provider)| ProfileView::from_profile(profile, provider))
            .collect();
        let mcp_servers = settings
            .mcp_servers
            .into_iter()
            .map(|s| super::mcp::McpServerView::new(s.name, s.entry, &s.keychain))
            .collect();
        Self {
            config_path: settings.config_path,
            providers: settings
                .providers
                .into_iter()
                .map(|p| ProviderView {
                    key_source: KeySourceView::from(&p.entry.key),
                    name: p.name,
                    protocol: p.entry.protocol.into(),
                    base_url: p.entry.base_url,
                    model: p.entry.model,
                    key_present: p.key_present,
                    tool_mode: p.entry.tool_mode.into(),
                    price: p.entry.price.map(PriceView::from),
                    context_window: p.entry.context_window,
                    vision: p.entry.vision,
                })
                .collect(),
            profiles,
            mcp_servers,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTestView {
    pub ok: bool,
    pub latency_ms: Option<u64>,
    pub error_class: Option<String>,
    pub message: String,
}

impl From<ProviderTest> for ProviderTestView {
    fn from(t: ProviderTest) -> Self {
        Self {
            ok: t.ok,
            latency_ms: t.latency_ms,
            error_class: t.error_class,
            message: t.message,
        }
    }
}

/// An approval remembered beyond its run, as Settings lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RememberedRuleView {
    /// Its place in the list, from 1 (for display only).
    pub number: u32,
    /// Its stable id (what `forget_rule` takes).
    pub id: String,
    pub prefix: String,
    pub network: bool,
    /// The workspace folder it holds for; absent: every workspace.
    pub workspace: Option<String>,
    pub from_run: String,
    pub at: String,
}

impl RememberedRuleView {
    pub fn list(rules: Vec<bearagent_runtime::config::RememberedCommand>) -> Vec<Self> {
        rules
            .into_iter()
            .zip(1u32..)
            .map(|(r, number)| Self {
                number,
                id: r.id(),
                prefix: r.prefix,
                network: r.network,
                workspace: r.workspace,
                from_run: r.from_run,
                at: r.at,
            })
            .collect()
    }
}

#[cfg(test)]
mod delegation_tests {
    use super::*;

    #[test]
    fn a_profiles_helpers_survive_a_save_from_the_settings_form() {
        let helped = RunProfile {
            name: "helped".into(),
            delegation: Some(bearagent_kernel::Delegation {
                max_depth: 3,
                share_percent: 40,
            }),
            ..RunProfile::default()
        };
        let (_, entry) = ProfileView::from_profile(helped, None).into_entry();
        assert_eq!(
            (
                entry.delegate,
                entry.delegation_depth,
                entry.delegation_share
            ),
            (Some(true), Some(3), Some(40))
        );
        let (_, plain) = ProfileView::from_profile(RunProfile::default(), None).into_entry();
        assert_eq!(
            (
                plain.delegate,
                plain.delegation_depth,
                plain.delegation_share
            ),
            (None, None, None)
        );
    }
}
