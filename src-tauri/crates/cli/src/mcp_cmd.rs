//! `bearagent mcp list`: the MCP servers the config defines.

use crate::exit::{self, Exit};
use bearagent_runtime::config::{McpServerEntry, SecretValue};
use bearagent_runtime::Application;
use serde_json::json;

/// Where a value comes from, never the value of a secret.
fn source(value: &SecretValue) -> String {
    match value {
        SecretValue::Env { env } => format!("${env}"),
        SecretValue::Plain(v) if v == "keychain" => "keychain".into(),
        SecretValue::Plain(_) => "(literal)".into(),
    }
}

fn transport(s: &McpServerEntry) -> String {
    match (&s.command, &s.url) {
        (Some(command), _) => format!("stdio: {command} {}", s.args.join(" ")),
        (None, Some(url)) => format!("http: {url}"),
        (None, None) => "(no transport)".into(),
    }
}

pub fn list(app: &Application, as_json: bool) -> Exit {
    let config = match app.config() {
        Ok(c) => c,
        Err(e) => return exit::report(&e),
    };
    if as_json {
        let servers: Vec<_> = config
            .mcp_servers
            .iter()
            .map(|(name, s)| {
                json!({
                    "name": name,
                    "transport": if s.command.is_some() { "stdio" } else { "http" },
                    "command": s.command,
                    "args": s.args,
                    "url": s.url,
                    "env": s.env.iter().map(|(k, v)| (k.clone(), source(v))).collect::<std::collections::BTreeMap<_, _>>(),
                    "enabled": s.is_enabled(),
                    "startup_timeout_secs": s.startup_timeout_secs,
                    "tool_timeout_secs": s.tool_timeout_secs,
                })
            })
            .collect();
        println!("{}", json!({ "mcp_servers": servers }));
        return Exit::Succeeded;
    }
    if config.mcp_servers.is_empty() {
        println!("no MCP servers in {}", app.config_path().display());
    }
    for (name, s) in &config.mcp_servers {
        let env: Vec<String> = s
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", source(v)))
            .collect();
        println!(
            "{name:<16} {:<8} {}{}",
            if s.is_enabled() {
                "enabled"
            } else {
                "disabled"
            },
            transport(s),
            if env.is_empty() {
                String::new()
            } else {
                format!("  env: {}", env.join(", "))
            }
        );
    }
    Exit::Succeeded
}
