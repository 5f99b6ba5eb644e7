//! One live session with one MCP server.

use crate::config::{ServerConfig, ServerInfo, Transport};
use crate::content::{render_result, tool_from_rmcp, McpCallResult};
use crate::error::McpError;
use crate::handler::{Handler, Shared};
use crate::names::McpTool;
use crate::process::{self, ServerProcess};
use bearagent_tools::AuthorizedCall;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ServerResult,
};
use rmcp::service::ClientInitializeError;
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a stdio server gets to exit after its stdin closes (and again
/// after SIGTERM) before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a cancellation notification may take to send.
const CANCEL_SEND: Duration = Duration::from_secs(1);
/// How long an HTTP session gets to close (DELETE) on shutdown.
const HTTP_CLOSE: Duration = Duration::from_secs(3);

/// A connected, initialised server. Dropping it kills a stdio server's
/// process group; [`McpConnection::shutdown`] stops it gracefully.
pub struct McpConnection {
    server: String,
    info: ServerInfo,
    tool_timeout: Duration,
    shared: Arc<Shared>,
    service: RunningService<RoleClient, Handler>,
    /// `Some` for a stdio server.
    process: Option<ServerProcess>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.server)
            .field("info", &self.info)
            .field("pid", &self.process_id())
            .finish()
    }
}

enum Outcome {
    Answered(Box<Result<ServerResult, ServiceError>>),
    Cancelled,
    TimedOut,
}

/// The progress still on its way after the answer: rmcp delivers
/// notifications on tasks of their own, so the last may trail the answer
/// by a moment. Yielding costs ~0.1 ms, so only calls that reported
/// progress wait for it.
async fn drain_progress(
    progress: &mut tokio::sync::mpsc::UnboundedReceiver<ProgressNotificationParam>,
    saw_progress: bool,
    on_progress: &(impl Fn(f64, Option<f64>, Option<String>) + Send + Sync),
) {
    let rounds = if saw_progress { 3 } else { 0 };
    for round in 0..=rounds {
        if round > 0 {
            tokio::task::yield_now().await;
        }
        while let Ok(p) = progress.try_recv() {
            on_progress(p.progress, p.total, p.message);
        }
    }
}

impl McpConnection {
    /// Starts the process (stdio) or opens the session (HTTP) and completes
    /// the `initialize` handshake within `startup_timeout`.
    pub async fn connect(cfg: &ServerConfig) -> Result<McpConnection, McpError> {
        let server = cfg.name.clone();
        let (handler, shared) = Handler::new(&server);
        let (service, process) = match &cfg.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let spawned = process::spawn(&server, command, args, env, cwd.as_deref())?;
                let (service, process) = serve_stdio(cfg, handler, spawned).await?;
                (service, Some(process))
            }
            Transport::Http { url, bearer_token } => {
                let service = serve_http(cfg, handler, url, bearer_token.as_ref()).await?;
                (service, None)
            }
        };
        let info = server_info(&service);
        tracing::info!(server = %server, name = %info.name, version = %info.version,
            protocol = %info.protocol_version, "MCP server connected");
        Ok(McpConnection {
            server,
            info,
            tool_timeout: cfg.tool_timeout,
            shared,
            service,
            process,
        })
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The server's process id (stdio only).
    pub fn process_id(&self) -> Option<u32> {
        self.process.as_ref().and_then(ServerProcess::pid)
    }

    /// Every tool the server offers, all pages, with exposed names for this
    /// server (run [`crate::expose_names`] over all servers' tools to catch
    /// collisions). Bounded by `tool_timeout`.
    pub async fn list_tools(&self) -> Result<Vec<McpTool>, McpError> {
        let listed =
            tokio::time::timeout(self.tool_timeout, self.service.peer().list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => return Err(self.service_error(e, None).await),
            Err(_) => {
                return Err(McpError::Protocol {
                    server: self.server.clone(),
                    reason: format!(
                        "tools/list got no answer within {}",
                        crate::error::Secs::from(self.tool_timeout)
                    ),
                })
            }
        };
        let tools: Vec<McpTool> = tools
            .into_iter()
            .map(|t| tool_from_rmcp(&self.server, t))
            .collect();
        self.shared
            .set_tool_names(tools.iter().map(|t| t.name.clone()).collect());
        Ok(tools)
    }

    /// Calls `tool` (the server's name for it) with the arguments of the
    /// authorised call — the only way a call reaches a server; the
    /// authorisation is spent here. `on_progress(progress, total, message)`
    /// sees the server's progress notifications. When `cancel` fires or
    /// `tool_timeout` passes, the server is sent `notifications/cancelled`
    /// and the call ends at once with [`McpError::Cancelled`] /
    /// [`McpError::CallTimeout`].
    pub async fn call_tool(
        &self,
        tool: &str,
        call: AuthorizedCall,
        cancel: CancellationToken,
        on_progress: impl Fn(f64, Option<f64>, Option<String>) + Send + Sync + 'static,
    ) -> Result<McpCallResult, McpError> {
        let args = match call.args() {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        if !self.shared.may_have_tool(tool) {
            return Err(McpError::ToolNotFound {
                server: self.server.clone(),
                tool: tool.to_owned(),
            });
        }
        if cancel.is_cancelled() {
            return Err(self.cancelled(tool));
        }
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = self.service.peer();
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(e) => return Err(self.service_error(e, Some(tool)).await),
        };
        let id = handle.id.clone();
        let (_route, mut progress) = self.shared.subscribe(handle.progress_token.clone());
        let response = handle.await_response();
        tokio::pin!(response);
        let deadline = tokio::time::sleep(self.tool_timeout);
        tokio::pin!(deadline);
        let mut saw_progress = false;
        let outcome = loop {
            tokio::select! {
                biased;
                r = &mut response => break Outcome::Answered(Box::new(r)),
                Some(p) = progress.recv() => {
                    saw_progress = true;
                    on_progress(p.progress, p.total, p.message);
                }
                _ = cancel.cancelled() => break Outcome::Cancelled,
                _ = &mut deadline => break Outcome::TimedOut,
            }
        };
        let reason = match outcome {
            Outcome::Answered(answer) => {
                let result = match *answer {
                    Ok(result) => result,
                    Err(e) => return Err(self.service_error(e, Some(tool)).await),
                };
                drain_progress(&mut progress, saw_progress, &on_progress).await;
                return self.call_result(tool, result);
            }
            Outcome::Cancelled => "cancelled by the user",
            Outcome::TimedOut => "tool_timeout exceeded",
        };
        // Tell the server to stop; rmcp also drops the pending request.
        let note = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
        let _ = tokio::time::timeout(CANCEL_SEND, peer.notify_cancelled(note)).await;
        Err(match outcome {
            Outcome::TimedOut => McpError::CallTimeout {
                server: self.server.clone(),
                tool: tool.to_owned(),
                secs: self.tool_timeout.into(),
            },
            _ => self.cancelled(tool),
        })
    }

    /// Closes the session: a stdio server's stdin is closed and it gets
    /// [`EXIT_GRACE`] to exit, then SIGTERM, then SIGKILL (its whole process
    /// group); an HTTP session is deleted.
    pub async fn shutdown(mut self) {
        let close = if self.process.is_some() {
            EXIT_GRACE
        } else {
            HTTP_CLOSE
        };
        let _ = self.service.close_with_timeout(close).await;
        if let Some(process) = self.process.take() {
            process.terminate(EXIT_GRACE).await;
        }
        tracing::info!(server = %self.server, "MCP server stopped");
    }

    fn cancelled(&self, tool: &str) -> McpError {
        McpError::Cancelled {
            server: self.server.clone(),
            tool: tool.to_owned(),
        }
    }

    fn call_result(&self, tool: &str, result: ServerResult) -> Result<McpCallResult, McpError> {
        let protocol = |reason: String| McpError::Protocol {
            server: self.server.clone(),
            reason,
        };
        match result {
            ServerResult::CallToolResult(r) => Ok(render_result(r)),
            // A reply without `content` decodes as an empty result.
            ServerResult::EmptyResult(_) => Ok(render_result(CallToolResult::default())),
            ServerResult::InputRequiredResult(_) => Err(protocol(format!(
                "tool `{tool}` asked for user input mid-call, which BearAgent does not support"
            ))),
            ServerResult::CreateTaskResult(_) => Err(protocol(format!(
                "tool `{tool}` answered with a task, which BearAgent does not support"
            ))),
            _ => Err(protocol(format!("unexpected reply to tools/call `{tool}`"))),
        }
    }

    /// Maps an rmcp failure to ours. A closed transport means the server
    /// went away: for stdio, say how (exit status, stderr) or, if it wrote
    /// garbage to stdout, that it broke the protocol.
    async fn service_error(&self, e: ServiceError, tool: Option<&str>) -> McpError {
        let server = self.server.clone();
        match e {
            ServiceError::McpError(err) => McpError::Protocol {
                server,
                reason: match tool {
                    Some(tool) => format!(
                        "tool `{tool}` failed: {} (JSON-RPC error {})",
                        err.message, err.code.0
                    ),
                    None => format!("{} (JSON-RPC error {})", err.message, err.code.0),
                },
            },
            ServiceError::Cancelled { .. } => McpError::Cancelled {
                server,
                tool: tool.unwrap_or_default().to_owned(),
            },
            ServiceError::Timeout { timeout } => match tool {
                Some(tool) => McpError::CallTimeout {
                    server,
                    tool: tool.to_owned(),
                    secs: timeout.into(),
                },
                None => McpError::Protocol {
                    server,
                    reason: format!("no answer within {}", crate::error::Secs::from(timeout)),
                },
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => match &self.process {
                Some(process) => match process.garbage() {
                    Some(line) => garbage_error(&server, line),
                    None => McpError::Exited {
                        server,
                        detail: process.exit_detail(Duration::from_secs(1)).await,
                    },
                },
                None => match e {
                    ServiceError::TransportSend(err) => McpError::Transport {
                        server,
                        reason: err.to_string(),
                    },
                    _ => McpError::Exited {
                        server,
                        detail: "the HTTP session closed".into(),
                    },
                },
            },
            other => McpError::Protocol {
                server,
                reason: other.to_string(),
            },
        }
    }
}

/// No handshake within `startup_timeout`.
fn start_timeout(cfg: &ServerConfig) -> McpError {
    McpError::StartTimeout {
        server: cfg.name.clone(),
        secs: cfg.startup_timeout.into(),
    }
}

/// The handshake over a spawned server's stdio. When it fails, the error
/// says why as best it can (garbage on stdout, an exit, the handshake's
/// own error); the process, dropped, is killed.
async fn serve_stdio(
    cfg: &ServerConfig,
    handler: Handler,
    spawned: process::Spawned,
) -> Result<(RunningService<RoleClient, Handler>, ServerProcess), McpError> {
    let started = tokio::time::timeout(
        cfg.startup_timeout,
        handler.serve((spawned.stdout, spawned.stdin)),
    )
    .await;
    let process = spawned.process;
    match started {
        Ok(Ok(service)) => Ok((service, process)),
        // Dropping `process` kills it.
        Err(_) => Err(start_timeout(cfg)),
        Ok(Err(e)) => {
            if let Some(line) = process.garbage() {
                return Err(garbage_error(&cfg.name, line));
            }
            let detail = process.exit_detail(Duration::from_millis(500)).await;
            let reason = if process.has_exited() {
                format!("it exited during the handshake ({detail})")
            } else {
                format!("{} ({detail})", init_error(&e))
            };
            Err(McpError::StartFailed {
                server: cfg.name.clone(),
                reason,
            })
        }
    }
}

/// The handshake with a streamable HTTP endpoint (`url` must be http or
/// https).
async fn serve_http(
    cfg: &ServerConfig,
    handler: Handler,
    url: &str,
    bearer_token: Option<&String>,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(McpError::Config {
            server: cfg.name.clone(),
            reason: format!("url `{url}` must start with http:// or https://"),
        });
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = bearer_token {
        config = config.auth_header(token.clone());
    }
    // A few quick reconnects of the event stream, not forever.
    let mut backoff = ExponentialBackoff::default();
    backoff.max_times = Some(3);
    backoff.base_duration = Duration::from_millis(250);
    backoff.max_delay = Some(Duration::from_secs(2));
    config.retry_config = Arc::new(backoff);
    let transport = StreamableHttpClientTransport::from_config(config);
    match tokio::time::timeout(cfg.startup_timeout, handler.serve(transport)).await {
        Ok(Ok(service)) => Ok(service),
        Err(_) => Err(start_timeout(cfg)),
        Ok(Err(e)) => {
            let mut reason = init_error(&e);
            if !reason.contains(url) {
                reason.push_str(&format!(" (url {url})"));
            }
            Err(McpError::StartFailed {
                server: cfg.name.clone(),
                reason,
            })
        }
    }
}

/// What the server said it is in the handshake (blank where it did not).
fn server_info(service: &RunningService<RoleClient, Handler>) -> ServerInfo {
    let peer = service.peer_info();
    ServerInfo {
        name: peer
            .as_ref()
            .and_then(|p| p.server_info.as_ref())
            .map(|i| i.name.clone())
            .unwrap_or_default(),
        version: peer
            .as_ref()
            .and_then(|p| p.server_info.as_ref())
            .map(|i| i.version.clone())
            .unwrap_or_default(),
        protocol_version: peer
            .as_ref()
            .map(|p| p.protocol_version.to_string())
            .unwrap_or_default(),
    }
}

fn garbage_error(server: &str, line: &str) -> McpError {
    McpError::Protocol {
        server: server.to_owned(),
        reason: format!(
            "it wrote non-JSON-RPC output to stdout: {line:?} (stdio servers must keep stdout for JSON-RPC and log to stderr)"
        ),
    }
}

/// Why the handshake failed, without rmcp's type names.
fn init_error(e: &ClientInitializeError) -> String {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            format!("{context}: {}", error_chain(&*error.error))
        }
        ClientInitializeError::ConnectionClosed(what) => {
            format!("the connection closed while waiting for the {what}")
        }
        ClientInitializeError::JsonRpcError(err) => format!(
            "it refused the handshake: {} (JSON-RPC error {})",
            err.message, err.code.0
        ),
        other => other.to_string(),
    }
}

/// An error and its sources, each said once (HTTP errors repeat themselves).
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}
