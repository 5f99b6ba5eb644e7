//! One configured MCP server, as the runtime hands it over after parsing the
//! TOML config (this crate never reads config files or the keychain).

use std::path::PathBuf;
use std::time::Duration;

/// How long a server may take to start and answer the handshake.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(20);
/// How long one tool call may run before it is cancelled.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The config key (`[mcp_servers.NAME]`); prefixes the tools' exposed names.
    pub name: String,
    pub transport: Transport,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
}

impl ServerConfig {
    /// A server with the default timeouts.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
        }
    }
}

/// How to reach the server.
#[derive(Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Already resolved values. The child gets these plus PATH, HOME and
        /// LANG from BearAgent's environment — nothing else.
        env: Vec<(String, String)>,
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint (e.g. `http://127.0.0.1:3001/mcp`).
    Http {
        url: String,
        /// Sent as `Authorization: Bearer …`.
        bearer_token: Option<String>,
    },
}

// By hand so that env values and the token (often secrets) never reach a log.
impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.iter().map(|(k, _)| k).collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Transport::Http { url, bearer_token } => f
                .debug_struct("Http")
                .field("url", url)
                .field("bearer_token", &bearer_token.as_ref().map(|_| "***"))
                .finish(),
        }
    }
}

/// Who answered the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    /// The protocol version the server agreed to, e.g. `2025-11-25`.
    pub protocol_version: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_secrets() {
        let t = Transport::Stdio {
            command: "srv".into(),
            args: vec![],
            env: vec![("TOKEN".into(), "s3cret".into())],
            cwd: None,
        };
        let h = Transport::Http {
            url: "http://127.0.0.1/mcp".into(),
            bearer_token: Some("s3cret".into()),
        };
        let shown = format!("{t:?} {h:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("TOKEN"), "{shown}");
    }
}
