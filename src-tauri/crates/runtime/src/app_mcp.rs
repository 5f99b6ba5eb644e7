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
fn keychain_entry(server: &str, name: &str) -> String {
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
