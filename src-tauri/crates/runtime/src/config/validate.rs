//! Checking a parsed config file: the rules across fields that serde
//! cannot express, each failure naming the field.

use super::file::{
    invalid, ConfigError, ConfigFile, KeySource, ProfileEntry, ProviderEntry, CONFIG_VERSION,
};
use super::mcp::is_variable_name;
use bearagent_kernel::ApprovalMode;
use bearagent_providers::Protocol;
use std::path::Path;

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
        validate_provider(path, name, p)?;
    }
    for (name, server) in &config.mcp_servers {
        super::mcp::validate_server(name, server)
            .map_err(|(field, message)| invalid(path, field, message))?;
    }
    for (name, profile) in &config.profiles {
        validate_profile(path, config, name, profile)?;
    }
    (config.web.check()).map_err(|(field, message)| invalid(path, field, message))?;
    crate::hooks::check_hooks(&config.hooks)
        .map_err(|e| invalid(path, format!("hooks.{}", e.at), e.message))?;
    Ok(())
}

/// A provider: a name that is not reserved, an http(s) URL, a model, where
/// its key comes from, a valid price and a plausible window.
fn validate_provider(path: &Path, name: &str, p: &ProviderEntry) -> Result<(), ConfigError> {
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
    Ok(())
}

/// A profile: a provider `config` knows, a known approval mode, limits
/// above 0, a valid spend limit and compaction share, and its command
/// settings.
fn validate_profile(
    path: &Path,
    config: &ConfigFile,
    name: &str,
    profile: &ProfileEntry,
) -> Result<(), ConfigError> {
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
    for (f, v) in positive_limits(profile) {
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
    validate_delegation(profile).map_err(|(f, e)| invalid(path, field(f), e))?;
    validate_commands(profile).map_err(|(f, e)| invalid(path, field(f), e))
}

/// Helpers nest 1 to 4 deep and reserve 1 to 90 % each: deeper trees or a
/// whole budget per child would leave the parent nothing to finish with.
fn validate_delegation(p: &ProfileEntry) -> Result<(), (&'static str, String)> {
    if p.delegation_depth.is_some_and(|d| !(1..=4).contains(&d)) {
        return Err(("delegation_depth", "must be 1 to 4".into()));
    }
    if p.delegation_share.is_some_and(|s| !(1..=90).contains(&s)) {
        return Err(("delegation_share", "must be 1 to 90 (percent)".into()));
    }
    Ok(())
}

/// The limits of a profile that must be above 0 when set, by field name.
fn positive_limits(profile: &ProfileEntry) -> [(&'static str, Option<u64>); 7] {
    [
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
    ]
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
        if !is_variable_name(name) {
            return Err(("command_env", format!("{name:?} is not a variable name")));
        }
    }
    for rule in p.command_rules.iter().flatten() {
        bearagent_tools::command::rules::validate_rule(rule).map_err(|e| ("command_rules", e))?;
    }
    for (key, decision) in p.mcp_rules.iter().flatten() {
        if *decision == bearagent_kernel::RuleDecision::AllowNetwork {
            return Err((
                "mcp_rules",
                format!("{key:?}: allow-network is for command rules; use allow"),
            ));
        }
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
