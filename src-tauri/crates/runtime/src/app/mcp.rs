//! MCP servers from the config: their secrets resolved (environment or
//! keychain, never written anywhere) and "Test": start, handshake, list
//! the tools with their annotations, stop.

use crate::app::Application;
use crate::config::{McpServerEntry, SecretStore, SecretValue};
use crate::AppError;
use bearagent_mcp::{expose_names, McpConnection, McpError, McpTool, ServerConfig, Transport};
use std::time::{Duration, Instant};
use tracing::instrument;

/// What "Test" found: who answered, how fast, and the tools it offers.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerTest {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    pub startup_ms: u64,
    pub tools: Vec<McpTool>,
}

/// The keychain entry of a server's secret: `mcp:SERVER:NAME`.
pub(crate) fn keychain_entry(server: &str, name: &str) -> String {
    format!("mcp:{server}:{name}")
}

fn resolve(
    secrets: &dyn SecretStore,
    server: &str,
    name: &str,
    value: &SecretValue,
) -> Result<String, AppError> {
    match value {
        SecretValue::Env { env } => std::env::var(env).map_err(|_| {
            AppError::InvalidInput(format!(
                "MCP server {server}: {name} comes from ${env}, which is not set"
            ))
        }),
        SecretValue::Plain(v) if v == "keychain" => {
            let entry = keychain_entry(server, name);
            secrets
                .get(&entry)
                .map(|k| k.secret_for_transport().to_owned())
                .map_err(|e| AppError::InvalidInput(format!("MCP server {server}: {name}: {e}")))
        }
        SecretValue::Plain(v) => Ok(v.clone()),
    }
}

/// The connectable form of a configured server (secrets resolved now).
pub(crate) fn server_config(
    secrets: &dyn SecretStore,
    name: &str,
    entry: &McpServerEntry,
) -> Result<ServerConfig, AppError> {
    let transport = match (&entry.command, &entry.url) {
        (Some(command), None) => Transport::Stdio {
            command: command.clone(),
            args: entry.args.clone(),
            env: entry
                .env
                .iter()
                .map(|(k, v)| Ok((k.clone(), resolve(secrets, name, k, v)?)))
                .collect::<Result<_, AppError>>()?,
            cwd: None,
        },
        (None, Some(url)) => Transport::Http {
            url: url.clone(),
            bearer_token: entry
                .bearer_token
                .as_ref()
                .map(|t| resolve(secrets, name, "bearer_token", t))
                .transpose()?,
        },
        _ => {
            return Err(AppError::InvalidInput(format!(
                "MCP server {name} needs exactly one of `command` and `url`"
            )))
        }
    };
    let mut config = ServerConfig::new(name, transport);
    if let Some(secs) = entry.startup_timeout_secs {
        config.startup_timeout = Duration::from_secs(secs);
    }
    if let Some(secs) = entry.tool_timeout_secs {
        config.tool_timeout = Duration::from_secs(secs);
    }
    Ok(config)
}

fn classified(e: McpError) -> AppError {
    AppError::Unavailable(e.to_string())
}

impl Application {
    /// Starts the configured server `name`, lists its tools and stops it.
    #[instrument(skip(self))]
    pub async fn test_mcp_server(&self, name: &str) -> Result<McpServerTest, AppError> {
        let config = self.config()?;
        let entry = config
            .mcp_servers
            .get(name)
            .ok_or_else(|| AppError::NotFound {
                what: "MCP server",
                id: name.to_owned(),
            })?;
        let server = server_config(self.secrets.as_ref(), name, entry)?;
        let started = Instant::now();
        let connection = McpConnection::connect(&server).await.map_err(classified)?;
        let startup_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let listed = connection.list_tools().await;
        let info = connection.info().clone();
        connection.shutdown().await;
        let tools = expose_names(listed.map_err(classified)?).map_err(classified)?;
        Ok(McpServerTest {
            server_name: info.name,
            server_version: info.version,
            protocol_version: info.protocol_version,
            startup_ms,
            tools,
        })
    }
}

impl Application {
    /// Adds or replaces the server `name`. The config's own rules apply
    /// (one of `command`/`url`, names, timeouts) and name the bad field.
    #[instrument(skip(self, entry))]
    pub fn save_mcp_server(&self, name: &str, entry: McpServerEntry) -> Result<(), AppError> {
        let name = name.trim().to_owned();
        self.update_config(|c| {
            c.mcp_servers.insert(name, entry);
            Ok(())
        })
    }

    /// Removes the server `name` and the keychain secrets its entry names.
    #[instrument(skip(self))]
    pub fn delete_mcp_server(&self, name: &str) -> Result<(), AppError> {
        let mut removed = None;
        self.update_config(|c| {
            removed = c.mcp_servers.remove(name);
            removed
                .as_ref()
                .map(|_| ())
                .ok_or_else(|| AppError::NotFound {
                    what: "MCP server",
                    id: name.to_owned(),
                })
        })?;
        for secret in removed.iter().flat_map(keychain_secret_names) {
            if let Err(e) = self.secrets.delete(&keychain_entry(name, &secret)) {
                tracing::warn!(server = name, secret, error = %e, "a server secret stayed in the keychain");
            }
        }
        Ok(())
    }

    /// Stores a server secret (`env` value or `bearer_token` set to
    /// `"keychain"`) in the OS keychain. It is never returned.
    #[instrument(skip(self, value))]
    pub fn set_mcp_secret(&self, server: &str, name: &str, value: &str) -> Result<(), AppError> {
        if value.trim().is_empty() {
            return Err(AppError::InvalidInput("the secret is empty".into()));
        }
        let config = self.config()?;
        let entry = config
            .mcp_servers
            .get(server)
            .ok_or_else(|| AppError::NotFound {
                what: "MCP server",
                id: server.to_owned(),
            })?;
        if !keychain_secret_names(entry).any(|n| n == name) {
            return Err(AppError::InvalidInput(format!(
                "MCP server {server} has no {name} set to \"keychain\""
            )));
        }
        self.secrets
            .set(&keychain_entry(server, name), value)
            .map_err(|e| AppError::InvalidInput(e.to_string()))
    }

    /// Whether each keychain secret of `server` is stored.
    pub fn mcp_secrets_present(&self, server: &str, entry: &McpServerEntry) -> Vec<(String, bool)> {
        keychain_secret_names(entry)
            .map(|n| {
                let present = self.secrets.contains(&keychain_entry(server, &n));
                (n, present)
            })
            .collect()
    }
}

/// The names of an entry's values that come from the keychain.
fn keychain_secret_names(entry: &McpServerEntry) -> impl Iterator<Item = String> + '_ {
    let env = entry
        .env
        .iter()
        .filter(|(_, v)| v.is_keychain())
        .map(|(k, _)| k.clone());
    let token = entry
        .bearer_token
        .as_ref()
        .filter(|t| t.is_keychain())
        .map(|_| "bearer_token".to_owned());
    env.chain(token)
}

impl Application {
    /// The servers a new run starts: every enabled one in the config, each
    /// connectable or with the reason it is not (a secret not set, …).
    pub(crate) fn mcp_plan(&self) -> Result<crate::mcp::McpPlan, AppError> {
        let config = self.config()?;
        Ok(config
            .mcp_servers
            .iter()
            .filter(|(_, entry)| entry.is_enabled())
            .map(|(name, entry)| {
                let server =
                    server_config(self.secrets.as_ref(), name, entry).map_err(|e| e.to_string());
                (name.clone(), server)
            })
            .collect())
    }
}
