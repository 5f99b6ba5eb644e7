//! Servers that misbehave: each failure is the right `McpError`, within its
//! timeout, and leaves no process behind. The server is a small Python
//! script (tests/common/mod.rs) that breaks in the way each test asks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bearagent_mcp::{CancellationToken, McpConnection, McpError, ServerConfig, Transport};
use common::*;
use serde_json::Map;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn no_progress(_: f64, _: Option<f64>, _: Option<String>) {}

async fn call(conn: &McpConnection, tool: &str) -> Result<String, McpError> {
    conn.call_tool(tool, Map::new(), CancellationToken::new(), no_progress)
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
    cfg.startup_timeout = Duration::from_millis(800);
    let started = Instant::now();
    let err = McpConnection::connect(&cfg).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, McpError::StartTimeout { .. }), "{err}");
    assert!(err.to_string().contains("`fault-silent`"), "{err}");
    assert!(
        elapsed >= Duration::from_millis(800) && elapsed < Duration::from_secs(3),
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
async fn garbage_on_stdout_mid_call_is_a_protocol_error() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("garbage-call"))
        .await
        .unwrap();
    let started = Instant::now();
    let err = call(&conn, "work").await.unwrap_err();
    assert!(matches!(err, McpError::Protocol { .. }), "{err}");
    assert!(err.to_string().contains("oops, this is not JSON"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
    // The connection is dead from then on, and says so at once.
    assert!(matches!(
        call(&conn, "work").await,
        Err(McpError::Protocol { .. })
    ));
    conn.shutdown().await;
}

#[tokio::test]
async fn a_server_that_exits_mid_call_gives_exited_with_its_status_and_stderr() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("crash"))
        .await
        .unwrap();
    assert_eq!(conn.info().name, "fault");
    let started = Instant::now();
    let err = call(&conn, "work").await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, McpError::Exited { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`fault-crash`") && msg.contains("exit code 3"),
        "{msg}"
    );
    assert!(msg.contains("boom: crashed on purpose"), "{msg}");
    // Later calls fail at once too.
    assert!(matches!(
        call(&conn, "work").await,
        Err(McpError::Exited { .. })
    ));
    conn.shutdown().await;
}

#[tokio::test]
async fn a_call_over_tool_timeout_is_cancelled_on_the_server() {
    let fault = FaultServer::new();
    let mut cfg = fault.config("hang");
    cfg.tool_timeout = Duration::from_millis(700);
    let conn = McpConnection::connect(&cfg).await.unwrap();
    let started = Instant::now();
    let err = call(&conn, "work").await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, McpError::CallTimeout { .. }), "{err}");
    assert!(err.to_string().contains("`work`") && err.to_string().contains("`fault-hang`"));
    assert!(
        elapsed >= Duration::from_millis(700) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    // The server was told, for the request it got.
    let received = wait_for(&fault, "notifications/cancelled").await;
    let call_id = request_id(&received, "tools/call");
    let cancel_line = received
        .lines()
        .find(|l| l.contains("notifications/cancelled"))
        .unwrap();
    let cancel: serde_json::Value = serde_json::from_str(cancel_line).unwrap();
    assert_eq!(cancel["params"]["requestId"], call_id, "{received}");
    conn.shutdown().await;
}

#[tokio::test]
async fn cancelling_sends_the_notification_and_returns_quickly() {
    let fault = FaultServer::new();
    let conn = McpConnection::connect(&fault.config("hang")).await.unwrap();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let started = Instant::now();
    let err = conn
        .call_tool("work", Map::new(), cancel, no_progress)
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Cancelled { .. }), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(wait_for(&fault, "notifications/cancelled")
        .await
        .contains("cancelled by the user"));
    conn.shutdown().await;
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
    tokio::time::sleep(Duration::from_millis(200)).await;

    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
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

async fn wait_for(fault: &FaultServer, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let received = fault.received();
        if received.contains(needle) || Instant::now() > deadline {
            return received;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn request_id(received: &str, method: &str) -> serde_json::Value {
    received
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["method"] == method)
        .map(|m| m["id"].clone())
        .unwrap()
}

/// No process still runs this test's script (its temp path is unique).
async fn no_python_left(fault: &FaultServer) -> bool {
    let script = fault.dir.path().join("server.py");
    let needle = script.to_string_lossy().into_owned();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
            .filter(|pid| !process_gone(*pid))
            .any(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|c| String::from_utf8_lossy(&c).contains(&needle))
                    .unwrap_or(false)
            });
        if !alive {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
