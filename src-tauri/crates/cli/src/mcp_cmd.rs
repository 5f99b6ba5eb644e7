//! `bearagent mcp list` and `bearagent mcp test NAME`: the MCP servers the
//! config defines, and whether one starts and what tools it offers.

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

pub async fn test(app: &Application, name: &str, as_json: bool) -> Exit {
    let report = match app.test_mcp_server(name).await {
        Ok(r) => r,
        Err(e) => return exit::report(&e),
    };
    if as_json {
        let tools: Vec<_> = report
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.exposed_name,
                    "server_tool": t.name,
                    "description": t.description,
                    "read_only_hint": t.read_only_hint,
                    "destructive_hint": t.destructive_hint,
                    "input_schema": t.input_schema,
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "server": report.server_name,
                "version": report.server_version,
                "protocol_version": report.protocol_version,
                "startup_ms": report.startup_ms,
                "tools": tools,
            })
        );
        return Exit::Succeeded;
    }
    println!(
        "{name}: {} {} (protocol {}), started in {} ms, {} tool(s)",
        report.server_name,
        report.server_version,
        report.protocol_version,
        report.startup_ms,
        report.tools.len()
    );
    for t in &report.tools {
        let hint = match t.read_only_hint {
            Some(true) => "read-only",
            Some(false) => "writes",
            None => "no hint",
        };
        println!(
            "  {:<40} {hint:<9} {}",
            t.exposed_name,
            first_line(&t.description)
        );
    }
    Exit::Succeeded
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
