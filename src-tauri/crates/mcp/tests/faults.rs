//! Servers that misbehave: each failure is the right `McpError`, within its
//! timeout, and leaves no process behind. The server is a small Python
//! script (tests/common/mod.rs) that breaks in the way each test asks, for
//! faults an rmcp server cannot commit (garbage before the handshake, a
//! silent handshake, stubbornness, stderr floods). Crashes, garbage, hangs
//! and cancellation mid-call are in faults_rmcp.rs, against a real rmcp server.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bearagent_mcp::testkit::authorized;
use bearagent_mcp::{CancellationToken, McpConnection, McpError, ServerConfig, Transport};
use common::*;
use serde_json::Map;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn no_progress(_: f64, _: Option<f64>, _: Option<String>) {}

async fn call(conn: &McpConnection, tool: &str) -> Result<String, McpError> {
    conn.call_tool(
        tool,
        authorized(Map::new()),
        CancellationToken::new(),
        no_progress,
    )
    .await
    .map(|r| r.text)
}

#[tokio::test]
async fn a_missing_command_fails_to_start_naming_it() {
    let cfg = ServerConfig::new(
        "ghost",
        Transport::Stdio {
            command: "bearagent-no-such-mcp-server".into(),
            args: vec![],
            env: vec![],
            cwd: None,
        },
    );
    let err = McpConnection::connect(&cfg).await.unwrap_err();
    assert!(matches!(err, McpError::StartFailed { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`ghost`") && msg.contains("bearagent-no-such-mcp-server"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_the_handshake_times_out_and_is_killed() {
    let fault = FaultServer::new();
    let mut cfg = fault.config("silent");
    // Long enough for the server (Python, maybe behind a version
    // manager's shim) to start and read the request on a busy machine.
    cfg.startup_timeout = Duration::from_millis(2_000);
    let started = Instant::now();
    let err = McpConnection::connect(&cfg).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, McpError::StartTimeout { .. }), "{err}");
    assert!(err.to_string().contains("`fault-silent`"), "{err}");
    assert!(
        elapsed >= Duration::from_millis(2_000) && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
    // It did get the initialize request, and is gone now.
    assert!(fault.received().contains("\"initialize\""));
    assert!(no_python_left(&fault).await);
}

#[tokio::test]
async fn garbage_on_stdout_at_start_is_a_protocol_error_not_a_hang() {
    let fault = FaultServer::new();
    let started = Instant::now();
    let err = McpConnection::connect(&fault.config("garbage-start"))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Protocol { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`fault-garbage-start`") && msg.contains("Welcome to the fault server!"),
        "{msg}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(no_python_left(&fault).await);
}

#[tokio::test]
async fn tools_are_listed_across_all_pages() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("paged"))
        .await
        .unwrap();
    let names: Vec<String> = conn
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["t0_0", "t0_1", "t1_0", "t1_1", "t2_0", "t2_1"]);
    conn.shutdown().await;
}

#[tokio::test]
async fn shutdown_kills_a_server_that_ignores_eof_and_sigterm_and_its_children() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("stubborn"))
        .await
        .unwrap();
    assert_eq!(call(&conn, "work").await.unwrap(), "ok");
    let started = Instant::now();
    conn.shutdown().await;
    let elapsed = started.elapsed();
    // 2 s for stdin EOF, 2 s after SIGTERM, then SIGKILL.
    assert!(
        elapsed >= Duration::from_secs(4) && elapsed < Duration::from_secs(6),
        "{elapsed:?}"
    );
    assert!(
        no_python_left(&fault).await,
        "the server or its child survived"
    );
}

#[tokio::test]
async fn dropping_the_connection_kills_the_server_and_its_children_at_once() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("stubborn"))
        .await
        .unwrap();
    let pid = conn.process_id().unwrap();
    drop(conn);
    assert!(wait_gone(pid, Duration::from_millis(500)).await);
    assert!(no_python_left(&fault).await, "the server's child survived");
}

/// A `tracing` writer that keeps what it is given.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// What was logged, as soon as it contains `needle` (after 10 s, what
    /// it is then).
    async fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let log = String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned();
            if log.contains(needle) || Instant::now() > deadline {
                return log;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[tokio::test]
async fn stderr_goes_to_the_log_capped_and_the_server_still_works() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    // The test runtime is single-threaded, so the stderr task logs here.
    let _guard = tracing::subscriber::set_default(subscriber);

    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("stderr-flood"))
        .await
        .unwrap();
    assert_eq!(call(&conn, "work").await.unwrap(), "ok");
    conn.shutdown().await;
    // The stderr task logs the notice once past the cap, and nothing after.
    let log = captured.wait_for("stderr truncated").await;
    let lines = log.lines().filter(|l| l.contains("xxxxxxxxxx")).count();
    // 10,000 lines of 100 bytes were written; 64 KiB of them are logged.
    assert!((600..=700).contains(&lines), "{lines} stderr lines logged");
    assert_eq!(
        log.matches("stderr truncated").count(),
        1,
        "{}",
        &log[log.len().saturating_sub(500)..]
    );
    assert!(log.contains("fault-stderr-flood"), "lines name the server");
}

/// No process still runs this test's script (its temp path is unique).
async fn no_python_left(fault: &FaultServer) -> bool {
    let script = fault.dir.path().join("server.py");
    let needle = script.to_string_lossy().into_owned();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        if pids_with_arg(&needle).is_empty() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
