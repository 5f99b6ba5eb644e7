//! IPC types of the MCP servers in Settings. Secrets never cross: a
//! keychain value says only whether it is stored.

use super::{ApiError, ErrorCode};
use bearagent_runtime::config::{McpServerEntry, SecretValue};
use bearagent_runtime::{McpServerTest, McpTool};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a value given to a server comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SecretSourceView {
    /// Written in the config file as is.
    Literal { value: String },
    /// BearAgent's environment variable `variable`.
    Env { variable: String },
    /// The OS keychain (entry `mcp:SERVER:NAME`); `present` when stored.
    Keychain { present: bool },
}

impl SecretSourceView {
    fn from_value(v: &SecretValue, present: bool) -> Self {
        match v {
            SecretValue::Env { env } => Self::Env {
                variable: env.clone(),
            },
            SecretValue::Plain(_) if v.is_keychain() => Self::Keychain { present },
            SecretValue::Plain(value) => Self::Literal {
                value: value.clone(),
            },
        }
    }

    fn into_value(self) -> SecretValue {
        match self {
            Self::Literal { value } => SecretValue::Plain(value),
            Self::Env { variable } => SecretValue::Env { env: variable },
            Self::Keychain { .. } => SecretValue::Plain("keychain".into()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EnvVarView {
    pub name: String,
    pub source: SecretSourceView,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum McpTransportView {
    /// A program BearAgent starts, speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<EnvVarView>,
    },
    /// A streamable HTTP endpoint.
    Http {
        url: String,
        bearer_token: Option<SecretSourceView>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub name: String,
    pub enabled: bool,
    pub transport: McpTransportView,
    pub startup_timeout_secs: Option<u32>,
    pub tool_timeout_secs: Option<u32>,
}

impl McpServerView {
    /// `keychain`: which of the entry's keychain secrets are stored.
    pub fn new(name: String, e: McpServerEntry, keychain: &[(String, bool)]) -> Self {
        let present = |n: &str| keychain.iter().any(|(k, p)| k == n && *p);
        let transport = match (&e.command, &e.url) {
            (_, Some(url)) if e.command.is_none() => McpTransportView::Http {
                url: url.clone(),
                bearer_token: e
                    .bearer_token
                    .as_ref()
                    .map(|t| SecretSourceView::from_value(t, present("bearer_token"))),
            },
            _ => McpTransportView::Stdio {
                command: e.command.clone().unwrap_or_default(),
                args: e.args.clone(),
                env: e
                    .env
                    .iter()
                    .map(|(k, v)| EnvVarView {
                        name: k.clone(),
                        source: SecretSourceView::from_value(v, present(k)),
                    })
                    .collect(),
            },
        };
        Self {
            name,
            enabled: e.is_enabled(),
            transport,
            startup_timeout_secs: e.startup_timeout_secs.map(clamp_u32),
            tool_timeout_secs: e.tool_timeout_secs.map(clamp_u32),
        }
    }

    /// The config entry; the config's own validation runs when it is saved.
    pub fn into_entry(self) -> Result<(String, McpServerEntry), ApiError> {
        if self.name.trim().is_empty() {
            return Err(ApiError::new(ErrorCode::InvalidInput, "name: required"));
        }
        let mut entry = McpServerEntry {
            startup_timeout_secs: self.startup_timeout_secs.map(u64::from),
            tool_timeout_secs: self.tool_timeout_secs.map(u64::from),
            // Only a disabled server says so in the file.
            enabled: (!self.enabled).then_some(false),
            ..McpServerEntry::default()
        };
        match self.transport {
            McpTransportView::Stdio { command, args, env } => {
                entry.command = Some(command.trim().to_owned());
                entry.args = args;
                let mut vars = BTreeMap::new();
                for var in env {
                    let name = var.name.trim().to_owned();
                    if vars.insert(name.clone(), var.source.into_value()).is_some() {
                        return Err(ApiError::new(
                            ErrorCode::InvalidInput,
                            format!("env: {name} is given twice"),
                        ));
                    }
                }
                entry.env = vars;
            }
            McpTransportView::Http { url, bearer_token } => {
                entry.url = Some(url.trim().to_owned());
                entry.bearer_token = bearer_token.map(SecretSourceView::into_value);
            }
        }
        Ok((self.name.trim().to_owned(), entry))
    }
}

fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// The server's own name for the tool.
    pub name: String,
    /// What the model calls it: `server__tool`.
    pub exposed_name: String,
    pub title: Option<String>,
    pub description: String,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
}

impl From<McpTool> for McpToolView {
    fn from(t: McpTool) -> Self {
        Self {
            name: t.name,
            exposed_name: t.exposed_name,
            title: t.title,
            description: t.description,
            read_only_hint: t.read_only_hint,
            destructive_hint: t.destructive_hint,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServerTestView {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    pub startup_ms: u64,
    pub tools: Vec<McpToolView>,
}

impl From<McpServerTest> for McpServerTestView {
    fn from(t: McpServerTest) -> Self {
        Self {
            server_name: t.server_name,
            server_version: t.server_version,
            protocol_version: t.protocol_version,
            startup_ms: t.startup_ms,
            tools: t.tools.into_iter().map(McpToolView::from).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_goes_to_the_form_and_back_unchanged() {
        let entry = McpServerEntry {
            command: Some("node".into()),
            args: vec!["server.js".into(), "stdio".into()],
            env: BTreeMap::from([
                ("A".into(), SecretValue::Plain("1".into())),
                ("B".into(), SecretValue::Env { env: "MY_B".into() }),
                ("C".into(), SecretValue::Plain("keychain".into())),
            ]),
            tool_timeout_secs: Some(60),
            enabled: Some(false),
            ..McpServerEntry::default()
        };
        let view = McpServerView::new("x".into(), entry.clone(), &[("C".into(), true)]);
        let McpTransportView::Stdio { env, .. } = &view.transport else {
            panic!("stdio expected");
        };
        assert_eq!(env[2].source, SecretSourceView::Keychain { present: true });
        assert!(!view.enabled);
        assert_eq!(view.into_entry().unwrap(), ("x".into(), entry));
    }

    #[test]
    fn an_http_server_and_a_doubled_variable() {
        let entry = McpServerEntry {
            url: Some("http://127.0.0.1:3001/mcp".into()),
            bearer_token: Some(SecretValue::Env { env: "T".into() }),
            ..McpServerEntry::default()
        };
        let view = McpServerView::new("r".into(), entry.clone(), &[]);
        assert!(view.enabled);
        assert_eq!(view.into_entry().unwrap().1, entry);
        let doubled = McpServerView {
            name: "d".into(),
            enabled: true,
            transport: McpTransportView::Stdio {
                command: "x".into(),
                args: vec![],
                env: vec![
                    EnvVarView {
                        name: "A".into(),
                        source: SecretSourceView::Literal { value: "1".into() },
                    },
                    EnvVarView {
                        name: "A".into(),
                        source: SecretSourceView::Literal { value: "2".into() },
                    },
                ],
            },
            startup_timeout_secs: None,
            tool_timeout_secs: None,
        };
        assert_eq!(
            doubled.into_entry().unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }
}
