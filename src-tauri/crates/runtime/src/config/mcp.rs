//! `[mcp_servers.NAME]` in the config file: the MCP servers a run may use,
//! in the ecosystem's convention (as in Codex). Secrets are referenced
//! (`{ env = "NAME" }`, `"keychain"`), never written into the file.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A value given to a server: a literal, an environment variable of
/// BearAgent's, or the OS keychain (entry `mcp:SERVER:NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SecretValue {
    /// `{ env = "VARIABLE" }`
    Env { env: String },
    /// A literal, or `"keychain"`.
    Plain(String),
}

impl SecretValue {
    pub fn is_keychain(&self) -> bool {
        matches!(self, SecretValue::Plain(v) if v == "keychain")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    /// A stdio server's program (`npx`, a path, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment for a stdio server (it gets PATH, HOME, LANG and
    /// these, nothing else).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, SecretValue>,
    /// A streamable HTTP server's endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<SecretValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_timeout_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

impl McpServerEntry {
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
}

/// Rules across fields: exactly one of `command` and `url`, an http(s)
/// URL, variable names that are names, timeouts above 0. Returns the
/// offending field and why.
pub fn validate_server(name: &str, s: &McpServerEntry) -> Result<(), (String, String)> {
    let field = |f: &str| format!("mcp_servers.{name}.{f}");
    let valid_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid_name {
        return Err((
            format!("mcp_servers.{name}"),
            "a server name uses letters, digits, `-` and `_` only (it prefixes its tools' names)"
                .into(),
        ));
    }
    match (&s.command, &s.url) {
        (Some(_), Some(_)) => {
            return Err((
                field("url"),
                "a server has either `command` (stdio) or `url` (HTTP), not both".into(),
            ))
        }
        (None, None) => {
            return Err((
                field("command"),
                "a server needs `command` (stdio) or `url` (streamable HTTP)".into(),
            ))
        }
        (Some(c), None) if c.trim().is_empty() => {
            return Err((field("command"), "must not be empty".into()))
        }
        (None, Some(u)) if !(u.starts_with("http://") || u.starts_with("https://")) => {
            return Err((field("url"), "must start with http:// or https://".into()))
        }
        _ => {}
    }
    if s.url.is_some() && (!s.args.is_empty() || !s.env.is_empty()) {
        return Err((
            field("args"),
            "`args` and `env` are for stdio servers (with `command`)".into(),
        ));
    }
    if s.command.is_some() && s.bearer_token.is_some() {
        return Err((
            field("bearer_token"),
            "`bearer_token` is for HTTP servers (with `url`)".into(),
        ));
    }
    for (var, value) in &s.env {
        if !is_variable_name(var) {
            return Err((field("env"), format!("{var:?} is not a variable name")));
        }
        if let SecretValue::Env { env } = value {
            if env.trim().is_empty() {
                return Err((field("env"), format!("{var}: env must name a variable")));
            }
        }
    }
    for (f, v) in [
        ("startup_timeout_secs", s.startup_timeout_secs),
        ("tool_timeout_secs", s.tool_timeout_secs),
    ] {
        if v == Some(0) {
            return Err((field(f), "must be greater than 0".into()));
        }
    }
    Ok(())
}

/// An environment variable's name: letters, digits and `_`, not starting
/// with a digit.
pub(crate) fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<BTreeMap<String, McpServerEntry>, String> {
        #[derive(Deserialize)]
        struct File {
            mcp_servers: BTreeMap<String, McpServerEntry>,
        }
        let f: File = toml::from_str(text).map_err(|e| e.to_string())?;
        for (name, s) in &f.mcp_servers {
            validate_server(name, s).map_err(|(field, why)| format!("{field}: {why}"))?;
        }
        Ok(f.mcp_servers)
    }

    #[test]
    fn stdio_and_http_servers_parse_as_in_the_ecosystem() {
        let servers = parse(
            r#"
[mcp_servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { SOME_VAR = "value", TOKEN = { env = "MY_TOKEN" }, OTHER = "keychain" }
startup_timeout_secs = 20
tool_timeout_secs = 120
enabled = true

[mcp_servers.remote]
url = "http://127.0.0.1:3001/mcp"
bearer_token = { env = "REMOTE_TOKEN" }
"#,
        )
        .unwrap();
        let e = &servers["everything"];
        assert_eq!(e.command.as_deref(), Some("npx"));
        assert_eq!(
            e.env["TOKEN"],
            SecretValue::Env {
                env: "MY_TOKEN".into()
            }
        );
        assert!(e.env["OTHER"].is_keychain());
        assert!(servers["remote"].is_enabled());
    }

    #[test]
    fn mistakes_name_the_field() {
        for (text, field) in [
            ("[mcp_servers.x]\nargs = []", "mcp_servers.x.command"),
            (
                "[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://h\"",
                "mcp_servers.x.url",
            ),
            ("[mcp_servers.x]\nurl = \"ftp://h\"", "mcp_servers.x.url"),
            (
                "[mcp_servers.x]\ncommand = \"a\"\nenv = { \"1X\" = \"v\" }",
                "mcp_servers.x.env",
            ),
            (
                "[mcp_servers.x]\ncommand = \"a\"\ntool_timeout_secs = 0",
                "mcp_servers.x.tool_timeout_secs",
            ),
            (
                "[mcp_servers.x]\ncommand = \"a\"\nbearer_token = \"t\"",
                "mcp_servers.x.bearer_token",
            ),
            ("[mcp_servers.\"a b\"]\ncommand = \"a\"", "mcp_servers.a b"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.starts_with(field), "{text}: {err}");
        }
        assert!(parse("[mcp_servers.x]\ncommand = \"a\"\nbogus = 1").is_err());
    }
}
