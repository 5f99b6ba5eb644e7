//! Faults mid-session from a real MCP server built on rmcp's server side
//! (`examples/fault_server.rs`, built by `cargo test`): each failure is the
//! right `McpError`, within its timeout, and leaves no process behind; the
//! well-behaved tools work, with their annotations and progress.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bearagent_mcp::testkit::authorized;
use bearagent_mcp::{CancellationToken, McpConnection, McpError};
use common::*;
use serde_json::Map;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// (progress, total, message) as the server reported it.
type Progress = (f64, Option<f64>, Option<String>);

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

/// A fault must end the call on its own; a hang fails the test instead of
/// stalling the suite.
async fn bounded<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .unwrap_or_else(|_| panic!("{what} hung"))
}

async fn connect(fault: &RmcpFaultServer) -> McpConnection {
    McpConnection::connect(&fault.config("serve"))
        .await
        .unwrap()
}

/// The server's pids as soon as it runs (after 5 s, none).
async fn running_pids(fault: &RmcpFaultServer) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let pids = fault.pids();
        if !pids.is_empty() || Instant::now() > deadline {
            return pids;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_slow_start_beyond_startup_timeout_times_out_and_the_process_is_killed() {
    let fault = RmcpFaultServer::new();
    let mut cfg = fault.config("slow-start 30");
    cfg.startup_timeout = Duration::from_millis(800);
    let started = Instant::now();
    // Catch the server's pid while the handshake is still pending.
    let (result, pids) = tokio::join!(McpConnection::connect(&cfg), running_pids(&fault));
    let elapsed = started.elapsed();
    let err = result.unwrap_err();
    assert!(matches!(err, McpError::StartTimeout { .. }), "{err}");
    assert!(err.to_string().contains("`rmcp-fault`"), "{err}");
    assert!(err.to_string().contains("within 0.8s"), "{err}");
    assert!(
        elapsed >= Duration::from_millis(800) && elapsed < Duration::from_secs(3),
        "{elapsed:?}"
    );
    assert_eq!(pids.len(), 1, "the server was running: {pids:?}");
    assert!(wait_gone(pids[0], Duration::from_secs(2)).await);
    assert!(fault.pids().is_empty());
}

#[tokio::test]
async fn a_slow_start_within_startup_timeout_connects() {
    let fault = RmcpFaultServer::new();
    let mut cfg = fault.config("slow-start 0.5");
    cfg.startup_timeout = Duration::from_secs(5);
    let started = Instant::now();
    let conn = McpConnection::connect(&cfg).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(500));
    assert_eq!(call(&conn, "ok").await.unwrap(), "fine");
    conn.shutdown().await;
}

#[tokio::test]
async fn the_ok_tool_works_and_only_it_is_listed_read_only() {
    let fault = RmcpFaultServer::new();
    let conn = connect(&fault).await;
    assert_eq!(conn.info().name, "bearagent-fault-server");
    assert!(!conn.info().protocol_version.is_empty());
    let tools = conn.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["ok", "crash", "garbage", "hang", "slow-progress"]);
    for tool in &tools {
        assert_eq!(tool.exposed_name, format!("rmcp-fault__{}", tool.name));
        assert_eq!(
            tool.read_only_hint,
            Some(tool.name == "ok"),
            "{}",
            tool.name
        );
        assert_eq!(tool.input_schema["type"], "object");
    }
    let r = conn
        .call_tool(
            "ok",
            authorized(Map::new()),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert_eq!(r.text, "fine");
    assert!(!r.is_error);
    // The server saw the call; a clean shutdown leaves nothing running.
    let seen = fault.wait_event("call").await.unwrap();
    assert_eq!(seen["tool"], "ok");
    let pid = conn.process_id().unwrap();
    conn.shutdown().await;
    assert!(wait_gone(pid, Duration::from_secs(1)).await);
}

#[tokio::test]
async fn progress_notifications_reach_on_progress_before_the_answer() {
    let fault = RmcpFaultServer::new();
    let conn = connect(&fault).await;
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = seen.clone();
    let r = conn
        .call_tool(
            "slow-progress",
            authorized(Map::new()),
            CancellationToken::new(),
            move |p, total, msg| sink.lock().unwrap().push((p, total, msg)),
        )
        .await
        .unwrap();
    assert_eq!(r.text, "done after 3 steps");
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    let expected: Vec<_> = (1..=3)
        .map(|i| (f64::from(i), Some(3.0), Some(format!("step {i} of 3"))))
        .collect();
    assert_eq!(seen, expected);
    conn.shutdown().await;
}

#[tokio::test]
async fn a_server_that_exits_mid_call_gives_exited_with_its_status_and_stderr() {
    let fault = RmcpFaultServer::new();
    let conn = connect(&fault).await;
    let pid = conn.process_id().unwrap();
    let started = Instant::now();
    let err = bounded("crash", call(&conn, "crash")).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, McpError::Exited { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`rmcp-fault`") && msg.contains("exit code 3"),
        "{msg}"
    );
    assert!(msg.contains("crashing on purpose mid-call"), "{msg}");
    assert!(process_gone(pid));
    // Later calls fail at once too.
    let later = bounded("call after crash", call(&conn, "ok")).await;
    assert!(matches!(later, Err(McpError::Exited { .. })), "{later:?}");
    conn.shutdown().await;
}

#[tokio::test]
async fn garbage_on_stdout_mid_call_is_a_protocol_error_not_a_hang() {
    let fault = RmcpFaultServer::new();
    let conn = connect(&fault).await;
    let started = Instant::now();
    let err = bounded("garbage", call(&conn, "garbage"))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Protocol { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`rmcp-fault`") && msg.contains("this is not json-rpc"),
        "{msg}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // The connection is dead from then on, and says so at once.
    let later = bounded("call after garbage", call(&conn, "ok")).await;
    assert!(matches!(later, Err(McpError::Protocol { .. })), "{later:?}");
    let pid = conn.process_id().unwrap();
    conn.shutdown().await;
    assert!(wait_gone(pid, Duration::from_secs(1)).await);
}

#[tokio::test]
async fn a_call_over_tool_timeout_is_cancelled_on_the_server() {
    let fault = RmcpFaultServer::new();
    let mut cfg = fault.config("serve");
    cfg.tool_timeout = Duration::from_millis(700);
    let conn = McpConnection::connect(&cfg).await.unwrap();
    let started = Instant::now();
    let err = bounded("hang", call(&conn, "hang")).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, McpError::CallTimeout { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("`hang`") && msg.contains("`rmcp-fault`"),
        "{msg}"
    );
    assert!(
        elapsed >= Duration::from_millis(700) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    // The server was told, for the request it got, and rmcp stopped the
    // handler.
    let call_id = fault.wait_event("call").await.unwrap()["id"].clone();
    let cancelled = fault.wait_event("cancelled").await.unwrap();
    assert_eq!(cancelled["requestId"], call_id, "{cancelled}");
    assert_eq!(cancelled["reason"], "tool_timeout exceeded");
    let stopped = fault.wait_event("call-stopped").await.unwrap();
    assert_eq!(stopped["id"], call_id);
    // The session goes on.
    assert_eq!(call(&conn, "ok").await.unwrap(), "fine");
    conn.shutdown().await;
}

#[tokio::test]
async fn cancelling_sends_the_notification_and_returns_quickly() {
    let fault = RmcpFaultServer::new();
    let conn = connect(&fault).await;
    let cancel = CancellationToken::new();
    let started = Instant::now();
    // Cancelled once the server has the call (which hangs).
    let (result, ()) = tokio::join!(
        bounded(
            "cancel",
            conn.call_tool("hang", authorized(Map::new()), cancel.clone(), no_progress),
        ),
        async {
            fault.wait_event("call").await;
            cancel.cancel();
        }
    );
    let err = result.unwrap_err();
    assert!(matches!(err, McpError::Cancelled { .. }), "{err}");
    assert!(err.to_string().contains("`hang`"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let call_id = fault.wait_event("call").await.unwrap()["id"].clone();
    let cancelled = fault.wait_event("cancelled").await.unwrap();
    assert_eq!(cancelled["requestId"], call_id, "{cancelled}");
    assert_eq!(cancelled["reason"], "cancelled by the user");
    assert!(fault.wait_event("call-stopped").await.is_some());
    assert_eq!(call(&conn, "ok").await.unwrap(), "fine");
    conn.shutdown().await;
}
