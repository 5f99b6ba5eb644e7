//! How talking to an MCP server fails. Every message names the server (and
//! the tool, for a call), because several servers run side by side and the
//! message may reach the user or the model on its own.

use std::fmt;

/// A length of time as it reads in a message: `20s`, `0.5s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Secs(pub f64);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Whole seconds print without a fraction; short test timeouts keep one.
        if self.0.fract() == 0.0 {
            write!(f, "{}s", self.0)
        } else {
            write!(f, "{:.1}s", self.0)
        }
    }
}

impl From<std::time::Duration> for Secs {
    fn from(d: std::time::Duration) -> Self {
        Secs(d.as_secs_f64())
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// The process could not be started, or the server failed its handshake.
    #[error("MCP server `{server}` failed to start: {reason}")]
    StartFailed { server: String, reason: String },
    /// No handshake answer within the startup timeout.
    #[error("MCP server `{server}` did not finish its handshake within {secs} (startup_timeout)")]
    StartTimeout { server: String, secs: Secs },
    /// The server broke the protocol: non-JSON-RPC output on stdout, an
    /// unexpected reply, or a JSON-RPC error answer.
    #[error("MCP server `{server}`: protocol error: {reason}")]
    Protocol { server: String, reason: String },
    /// The process exited or the connection closed while in use.
    #[error("MCP server `{server}` exited: {detail}")]
    Exited { server: String, detail: String },
    /// The HTTP transport could not deliver a message.
    #[error("MCP server `{server}`: transport error: {reason}")]
    Transport { server: String, reason: String },
    #[error("MCP tool `{tool}` on server `{server}` did not answer within {secs} (tool_timeout); the call was cancelled")]
    CallTimeout {
        server: String,
        tool: String,
        secs: Secs,
    },
    #[error("MCP tool `{tool}` on server `{server}` was cancelled")]
    Cancelled { server: String, tool: String },
    #[error("MCP server `{server}` has no tool `{tool}`")]
    ToolNotFound { server: String, tool: String },
    /// Two tools would be shown to the model under the same name.
    #[error("MCP tools `{a}` and `{b}` would both be exposed as `{exposed}`; rename a server in the config")]
    NameCollision {
        a: String,
        b: String,
        exposed: String,
    },
    /// The configuration cannot work (empty command, bad URL, …).
    #[error("MCP server `{server}`: invalid configuration: {reason}")]
    Config { server: String, reason: String },
}

impl McpError {
    /// The server the error is about, when there is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            McpError::StartFailed { server, .. }
            | McpError::StartTimeout { server, .. }
            | McpError::Protocol { server, .. }
            | McpError::Exited { server, .. }
            | McpError::Transport { server, .. }
            | McpError::CallTimeout { server, .. }
            | McpError::Cancelled { server, .. }
            | McpError::ToolNotFound { server, .. }
            | McpError::Config { server, .. } => Some(server),
            McpError::NameCollision { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn messages_name_the_server_and_read_well() {
        let e = McpError::StartTimeout {
            server: "fs".into(),
            secs: Duration::from_secs(20).into(),
        };
        assert_eq!(
            e.to_string(),
            "MCP server `fs` did not finish its handshake within 20s (startup_timeout)"
        );
        let e = McpError::CallTimeout {
            server: "fs".into(),
            tool: "read".into(),
            secs: Duration::from_millis(500).into(),
        };
        assert!(e.to_string().contains("within 0.5s"), "{e}");
        assert_eq!(e.server(), Some("fs"));
    }
}
