//! Names → providers and profiles, from the config plus one-run overrides.

use super::file::{ConfigFile, KeySource, NamedKeySource, ProfileEntry};
use super::keys::{key_from_env, SecretStore};
use crate::profile::RunProfile;
use crate::AppError;
use bearagent_kernel::ApprovalMode;
use bearagent_providers::{ApiKey, HttpProviderConfig, Protocol, RetryPolicy, Timeouts, ToolMode};

/// Per-run overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct ProviderOverrides {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Name of the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// Native tool calling or JSON-text mode, for this run.
    pub tool_mode: Option<ToolMode>,
}

fn default_base_url(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Anthropic => "https://api.anthropic.com",
        Protocol::OpenAiChat | Protocol::OpenAiResponses => "https://api.openai.com",
        Protocol::OllamaChat => "http://127.0.0.1:11434",
    }
}

fn key_error(e: super::keys::KeyError) -> AppError {
    AppError::InvalidInput(e.to_string())
}

/// The HTTP provider configuration for `name`: a configured provider, or
/// a protocol name (`openai-chat`, `openai-responses`, `anthropic`,
/// `ollama-chat`) used with the overrides and no config at all.
pub fn http_config(
    config: &ConfigFile,
    secrets: &dyn SecretStore,
    name: &str,
    overrides: &ProviderOverrides,
) -> Result<HttpProviderConfig, AppError> {
    let (protocol, base_url, model, key_source, tool_mode, price) =
        if let Some(entry) = config.providers.get(name) {
            (
                entry.protocol,
                entry.base_url.clone(),
                entry.model.clone(),
                entry.key.clone(),
                entry.tool_mode,
                entry.price,
            )
        } else if let Ok(protocol) = name.parse::<Protocol>() {
            let model = overrides.model.clone().ok_or_else(|| {
                AppError::InvalidInput(format!("provider {name} needs a model (--model)"))
            })?;
            let key = match &overrides.api_key_env {
                Some(_) => KeySource::Unset,
                None => KeySource::Named(NamedKeySource::None),
            };
            (
                protocol,
                default_base_url(protocol).to_owned(),
                model,
                key,
                ToolMode::default(),
                None,
            )
        } else {
            return Err(AppError::NotFound {
                what: "provider",
                id: name.to_owned(),
            });
        };
    let api_key: Option<ApiKey> = match (&overrides.api_key_env, &key_source) {
        (Some(var), _) => Some(key_from_env(var).map_err(key_error)?),
        (None, KeySource::Env { env }) => Some(key_from_env(env).map_err(key_error)?),
        (None, KeySource::Named(NamedKeySource::Keychain)) => {
            Some(secrets.get(name).map_err(key_error)?)
        }
        (None, KeySource::Named(NamedKeySource::None) | KeySource::Unset) => None,
    };
    let base_url = overrides.base_url.clone().unwrap_or(base_url);
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(AppError::InvalidInput(format!(
            "base URL {base_url:?} must start with http:// or https://"
        )));
    }
    Ok(HttpProviderConfig {
        name: name.to_owned(),
        protocol,
        base_url,
        model: overrides.model.clone().unwrap_or(model),
        api_key,
        timeouts: Timeouts::default(),
        retry: RetryPolicy::default(),
        max_output_tokens: 8192,
        tool_mode: overrides.tool_mode.unwrap_or(tool_mode),
        price: price
            .map(|p| p.to_price())
            .transpose()
            .map_err(|e| AppError::InvalidInput(format!("provider {name}: price: {e}")))?,
        context_window: config.providers.get(name).and_then(|e| e.context_window),
        vision: config.providers.get(name).and_then(|e| e.vision),
        learned: None,
    })
}

/// The run profile named `name` and the provider/model it prefers.
pub fn profile(
    config: &ConfigFile,
    name: &str,
) -> Result<(RunProfile, Option<String>, Option<String>), AppError> {
    let entry = match config.profiles.get(name) {
        Some(e) => e.clone(),
        None if name == "default" => ProfileEntry::default(),
        None => {
            return Err(AppError::NotFound {
                what: "profile",
                id: name.to_owned(),
            })
        }
    };
    let mut p = RunProfile {
        name: name.to_owned(),
        ..RunProfile::default()
    };
    if let Some(mode) = &entry.approval {
        p.approval_mode = mode
            .parse::<ApprovalMode>()
            .map_err(|e| AppError::InvalidInput(e.to_string()))?;
    }
    let b = &mut p.budgets;
    b.max_model_calls = entry.max_model_calls.unwrap_or(b.max_model_calls);
    b.max_tool_calls = entry.max_tool_calls.unwrap_or(b.max_tool_calls);
    b.max_input_tokens = entry.max_input_tokens.unwrap_or(b.max_input_tokens);
    b.max_output_tokens = entry.max_output_tokens.unwrap_or(b.max_output_tokens);
    if let Some(secs) = entry.max_wall_time_secs {
        b.max_wall_time_ms = secs.saturating_mul(1000);
    }
    if let Some(usd) = entry.max_cost {
        b.max_cost_micro_usd = Some(
            super::validate::max_cost_micro_usd(usd)
                .map_err(|e| AppError::InvalidInput(format!("profile {name}: max_cost {e}")))?,
        );
    }
    let c = &mut p.context;
    c.compact_at_permille = match (entry.compact, entry.compact_at) {
        (Some(false), _) => None,
        (_, Some(share)) => Some(
            super::validate::compact_at_permille(share)
                .map_err(|e| AppError::InvalidInput(format!("profile {name}: compact_at {e}")))?,
        ),
        (_, None) => c.compact_at_permille,
    };
    c.max_context_bytes = entry.max_context_bytes.unwrap_or(c.max_context_bytes);
    c.max_tool_result_bytes = entry
        .max_tool_result_bytes
        .unwrap_or(c.max_tool_result_bytes);
    p.context_profile = entry
        .context_profile
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| AppError::InvalidInput(format!("profile {name}: {e}")))?;
    p.max_invalid_outputs = entry.max_invalid_outputs.unwrap_or(p.max_invalid_outputs);
    p.max_repeated_calls = entry.max_repeated_calls.unwrap_or(p.max_repeated_calls);
    let c = &mut p.commands;
    c.sandbox = entry.sandbox.as_deref() != Some("off");
    c.network = entry.network.unwrap_or(c.network);
    c.max_timeout_secs = entry.command_timeout_secs.unwrap_or(c.max_timeout_secs);
    if let Some(dirs) = &entry.toolchain_dirs {
        c.toolchain_dirs = dirs.clone();
    }
    c.env = entry.command_env.clone().unwrap_or_default();
    c.rules = entry.command_rules.clone().unwrap_or_default();
    p.mcp_rules = entry.mcp_rules.clone().unwrap_or_default();
    p.delegation = delegation_of(&entry);
    // One set of domain rules for every profile; recorded on each run.
    p.web_rules = config.web.rules.clone();
    Ok((p, entry.provider, entry.model))
}

/// The profile's delegation: on with `delegate = true`, or when it sets
/// a depth or share (validated when the file was read).
fn delegation_of(entry: &ProfileEntry) -> Option<bearagent_kernel::Delegation> {
    let asked = entry.delegation_depth.is_some() || entry.delegation_share.is_some();
    if entry.delegate == Some(false) || !(asked || entry.delegate == Some(true)) {
        return None;
    }
    let mut d = bearagent_kernel::Delegation::default();
    d.max_depth = entry.delegation_depth.unwrap_or(d.max_depth);
    d.share_percent = entry.delegation_share.unwrap_or(d.share_percent);
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys::MemoryKeys;
    use crate::config::load::parse;
    use std::path::Path;

    fn config() -> ConfigFile {
        parse(
            Path::new("c.toml"),
            r#"
version = 1
[providers.vault]
protocol = "openai-responses"
base_url = "https://example.test"
model = "m1"
key = "keychain"
[profiles.fast]
provider = "vault"
approval = "all"
max_wall_time_secs = 60
"#,
        )
        .unwrap()
    }

    #[test]
    fn a_configured_provider_takes_its_key_from_the_keychain() {
        let keys = MemoryKeys::default();
        let err =
            http_config(&config(), &keys, "vault", &ProviderOverrides::default()).unwrap_err();
        assert!(err.to_string().contains("no key is stored"), "{err}");
        keys.set("vault", "sk-secret-value").unwrap();
        let c = http_config(&config(), &keys, "vault", &ProviderOverrides::default()).unwrap();
        assert_eq!(c.protocol, Protocol::OpenAiResponses);
        assert_eq!(c.model, "m1");
        assert!(c.api_key.is_some());
        assert!(!format!("{c:?}").contains("sk-secret-value"));
    }

    #[test]
    fn a_protocol_name_works_without_config_from_overrides() {
        let overrides = ProviderOverrides {
            base_url: Some("http://127.0.0.1:9".into()),
            model: Some("local".into()),
            api_key_env: None,
            tool_mode: Some(ToolMode::JsonText),
        };
        let c = http_config(
            &ConfigFile::default(),
            &MemoryKeys::default(),
            "anthropic",
            &overrides,
        )
        .unwrap();
        assert_eq!(c.protocol, Protocol::Anthropic);
        assert_eq!(c.base_url, "http://127.0.0.1:9");
        assert_eq!(c.tool_mode, ToolMode::JsonText);
        assert!(c.api_key.is_none());
        let no_model = ProviderOverrides {
            model: None,
            ..overrides
        };
        assert!(http_config(
            &ConfigFile::default(),
            &MemoryKeys::default(),
            "anthropic",
            &no_model
        )
        .is_err());
        assert!(http_config(
            &ConfigFile::default(),
            &MemoryKeys::default(),
            "nope",
            &ProviderOverrides::default()
        )
        .is_err());
    }

    #[test]
    fn profiles_apply_their_settings_over_the_defaults() {
        let (p, provider, _) = profile(&config(), "fast").unwrap();
        assert_eq!(p.approval_mode, ApprovalMode::AllowAll);
        assert_eq!(p.budgets.max_wall_time_ms, 60_000);
        assert_eq!(provider.as_deref(), Some("vault"));
        assert_eq!(
            profile(&config(), "default").unwrap().0,
            RunProfile::default()
        );
        assert!(profile(&config(), "missing").is_err());
    }

    #[test]
    fn a_profile_lets_runs_delegate_with_its_depth_and_share() {
        let file = |body: &str| parse(Path::new("c.toml"), &format!("version = 1\n{body}"));
        let delegation = |body: &str| profile(&file(body).unwrap(), "p").unwrap().0.delegation;
        assert_eq!(delegation("[profiles.p]\napproval = \"ask\""), None);
        assert_eq!(
            delegation("[profiles.p]\ndelegate = true"),
            Some(bearagent_kernel::Delegation::default())
        );
        let set = delegation("[profiles.p]\ndelegation_depth = 1\ndelegation_share = 50").unwrap();
        assert_eq!((set.max_depth, set.share_percent), (1, 50));
        assert_eq!(
            delegation("[profiles.p]\ndelegate = false\ndelegation_depth = 3"),
            None
        );
        for (bad, field) in [
            ("delegation_depth = 0", "delegation_depth"),
            ("delegation_depth = 9", "delegation_depth"),
            ("delegation_share = 0", "delegation_share"),
            ("delegation_share = 95", "delegation_share"),
        ] {
            let err = file(&format!("[profiles.p]\n{bad}"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("profiles.p.{field}")), "{bad}: {err}");
        }
    }
}
