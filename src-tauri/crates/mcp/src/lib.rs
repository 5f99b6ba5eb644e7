//! BearAgent's MCP client: connects to configured Model Context Protocol
//! servers (a child process over stdio, or streamable HTTP), lists their
//! tools under provider-safe names and calls them with progress, timeouts
//! and cancellation. The protocol itself is rmcp's, the official Rust SDK;
//! this crate adds what an agent needs around it: a scrubbed environment
//! for child processes, stderr into the log, no hangs on broken servers,
//! and errors that name the server.
//!
//! No Tauri, no config parsing: the runtime hands over [`ServerConfig`]s.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod config;
mod connection;
mod content;
mod error;
mod handler;
mod names;
mod process;

pub use config::{
    ServerConfig, ServerInfo, Transport, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT,
};
pub use connection::McpConnection;
pub use content::McpCallResult;
pub use error::{McpError, Secs};
pub use names::{expose_names, exposed_name, McpTool, MAX_EXPOSED_LEN};
pub use process::{server_env, INHERITED_ENV, STDERR_CAP};
pub use tokio_util::sync::CancellationToken;

#[cfg(any(test, feature = "test-support"))]
pub mod testkit;
