//! A real MCP server over stdio, built on rmcp's server side, whose tools
//! fail on purpose. tests/faults_rmcp.rs drives it through `McpConnection`,
//! so the client is tested against the SDK's own server behaviour (framing,
//! cancellation, progress) rather than a hand-written imitation.
//!
//! Usage:
//!   fault_server serve [LOG]
//!   fault_server slow-start SECS [LOG]    (sleeps SECS, then serves)
//!
//! Tools: `ok` (answers "fine"; the only read-only one), `crash` (exits
//! with status 3 mid-call), `garbage` (writes a non-JSON line to stdout
//! mid-call and never answers), `hang` (never answers) and `slow-progress`
//! (three progress notifications, then an answer). When LOG is given, every
//! call and every `notifications/cancelled` is appended to it as one JSON line.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ContentBlock, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::fs::File;
use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// What `garbage` writes to stdout; the tests look for it in the error.
const GARBAGE: &str = "this is not json-rpc";
/// Progress steps of `slow-progress`, and the pause before each.
const PROGRESS_STEPS: u32 = 3;
const PROGRESS_PAUSE: Duration = Duration::from_millis(100);

const USAGE: &str = "usage: fault_server serve [LOG] | fault_server slow-start SECS [LOG]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fault_server: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (delay, log_path) = match args.as_slice() {
        [mode] if mode == "serve" => (None, None),
        [mode, log] if mode == "serve" => (None, Some(log)),
        [mode, secs, rest @ ..] if mode == "slow-start" && rest.len() <= 1 => {
            let secs: f64 = secs.parse().map_err(|_| format!("bad SECS {secs:?}"))?;
            let delay = Duration::try_from_secs_f64(secs).map_err(|e| format!("SECS: {e}"))?;
            (Some(delay), rest.first())
        }
        _ => return Err(USAGE.into()),
    };
    let log = match log_path {
        Some(path) => Some(Log(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open log {path}: {e}"))?,
        ))),
        None => None,
    };
    if let Some(delay) = delay {
        // Before the transport exists, so the client's `initialize` waits.
        tokio::time::sleep(delay).await;
    }
    let server = FaultServer { log };
    let service = server.serve(rmcp::transport::io::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

/// Appends JSON lines to the log file given on the command line.
struct Log(Mutex<File>);

impl Log {
    fn record(&self, entry: Value) {
        let mut file = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // A test reads the log while we run, so write whole lines at once.
        if let Err(e) = writeln!(file, "{entry}").and_then(|()| file.flush()) {
            eprintln!("fault_server: cannot write the log: {e}");
        }
    }
}

struct FaultServer {
    log: Option<Log>,
}

impl FaultServer {
    fn record(&self, entry: Value) {
        if let Some(log) = &self.log {
            log.record(entry);
        }
    }
}

fn tools() -> Vec<Tool> {
    let schema: Arc<JsonObject> =
        Arc::new([("type".to_owned(), json!("object"))].into_iter().collect());
    [
        ("ok", "Answers `fine`.", true),
        ("crash", "Exits with status 3 before answering.", false),
        (
            "garbage",
            "Writes a non-JSON line to stdout, then never answers.",
            false,
        ),
        ("hang", "Never answers (until cancelled).", false),
        (
            "slow-progress",
            "Reports progress three times, then answers.",
            false,
        ),
    ]
    .into_iter()
    .map(|(name, description, read_only)| {
        Tool::new(name, description, schema.clone())
            .with_annotations(ToolAnnotations::new().read_only(read_only))
    })
    .collect()
}

fn text(s: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(s)]).into()
}

impl ServerHandler for FaultServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("bearagent-fault-server", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let id = json!(context.id);
        self.record(json!({"event": "call", "tool": request.name, "id": id}));
        match request.name.as_ref() {
            "ok" => Ok(text("fine")),
            "crash" => {
                // The client should quote this (its last stderr line).
                eprintln!("fault_server: crashing on purpose mid-call");
                std::process::exit(3);
            }
            "garbage" => {
                // Straight onto fd 1, past rmcp's framing: what a server
                // that prints a debug line to stdout does.
                {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{GARBAGE}").and_then(|()| out.flush());
                }
                context.ct.cancelled().await;
                Err(ErrorData::internal_error("never answered", None))
            }
            "hang" => {
                // rmcp cancels `ct` on `notifications/cancelled` (and when
                // the session ends) and drops the answer to a cancelled
                // request, so nothing is ever sent back.
                context.ct.cancelled().await;
                self.record(json!({"event": "call-stopped", "tool": "hang", "id": id}));
                Err(ErrorData::internal_error("cancelled", None))
            }
            "slow-progress" => {
                let token = context.meta.get_progress_token();
                for step in 1..=PROGRESS_STEPS {
                    tokio::time::sleep(PROGRESS_PAUSE).await;
                    if let Some(token) = &token {
                        let note = ProgressNotificationParam::new(token.clone(), step.into())
                            .with_total(PROGRESS_STEPS.into())
                            .with_message(format!("step {step} of {PROGRESS_STEPS}"));
                        context
                            .peer
                            .notify_progress(note)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    }
                }
                Ok(text(format!("done after {PROGRESS_STEPS} steps")))
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`"),
                None,
            )),
        }
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.record(json!({
            "event": "cancelled",
            "requestId": notification.request_id,
            "reason": notification.reason,
        }));
    }
}
