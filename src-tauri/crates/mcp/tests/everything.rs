//! Against the official reference server, `@modelcontextprotocol/server-everything`
//! (pinned in tests/mcp/package.json), over stdio and streamable HTTP.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bearagent_mcp::testkit::authorized;
use bearagent_mcp::{
    expose_names, CancellationToken, McpConnection, McpError, ServerConfig, Transport,
};
use common::*;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// (progress, total) as the server reported it.
type Progress = (f64, Option<f64>);

fn no_progress(_: f64, _: Option<f64>, _: Option<String>) {}

async fn connect() -> McpConnection {
    McpConnection::connect(&everything_stdio(vec![]))
        .await
        .unwrap()
}

#[tokio::test]
async fn lists_tools_with_schemas_and_calls_echo_and_get_sum() {
    let conn = connect().await;
    let info = conn.info();
    assert_eq!(info.name, "mcp-servers/everything");
    assert_eq!(info.version, "2.0.0");
    assert!(!info.protocol_version.is_empty());

    let tools = conn.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-env",
        "trigger-long-running-operation",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.exposed_name, "everything__echo");
    assert_eq!(echo.description, "Echoes back the input string");
    assert_eq!(echo.title.as_deref(), Some("Echo Tool"));
    assert_eq!(echo.read_only_hint, Some(true));
    assert_eq!(echo.destructive_hint, Some(false));
    assert_eq!(echo.input_schema["type"], "object");
    assert_eq!(echo.input_schema["properties"]["message"]["type"], "string");
    assert_eq!(echo.input_schema["required"], json!(["message"]));
    let sum = tools.iter().find(|t| t.name == "get-sum").unwrap();
    assert_eq!(sum.exposed_name, "everything__get-sum");
    assert_eq!(sum.input_schema["properties"]["a"]["type"], "number");
    // The whole list is provider-safe and collision-free.
    let exposed = expose_names(tools.clone()).unwrap();
    assert_eq!(exposed, tools);

    let r = conn
        .call_tool(
            "echo",
            authorized(args(json!({"message": "hello MCP"}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert_eq!(r.text, "Echo: hello MCP");
    assert!(!r.is_error);

    let r = conn
        .call_tool(
            "get-sum",
            authorized(args(json!({"a": 2, "b": 40.5}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert!(r.text.contains("is 42.5"), "{}", r.text);

    // Bad arguments come back as a tool error the model can read.
    let r = conn
        .call_tool(
            "get-sum",
            authorized(args(json!({"a": "x"}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert!(r.is_error, "{}", r.text);

    let err = conn
        .call_tool(
            "no-such-tool",
            authorized(Map::new()),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::ToolNotFound { .. }), "{err}");
    assert!(err.to_string().contains("`everything`"), "{err}");

    // Other content kinds render as text.
    let r = conn
        .call_tool(
            "get-tiny-image",
            authorized(Map::new()),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert!(r.text.contains("[image: image/png, "), "{}", r.text);
    // The reference server's tiny image is a real PNG: its bytes come back.
    assert_eq!(r.images.len(), 1);
    assert!(r.images[0].starts_with(b"\x89PNG\r\n\x1a\n"));
    let r = conn
        .call_tool(
            "get-resource-links",
            authorized(args(json!({"count": 2}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert!(r.text.contains("[resource: "), "{}", r.text);

    let pid = conn.process_id().unwrap();
    let started = Instant::now();
    conn.shutdown().await;
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "server {pid} still running"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_server_gets_only_path_home_lang_and_its_configured_env() {
    // Stand-ins for the keys BearAgent itself may hold.
    std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-must-not-leak");
    std::env::set_var("OPENAI_API_KEY", "sk-openai-must-not-leak");
    let conn = McpConnection::connect(&everything_stdio(vec![(
        "MY_SETTING".into(),
        "configured".into(),
    )]))
    .await
    .unwrap();
    let r = conn
        .call_tool(
            "get-env",
            authorized(Map::new()),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert!(!r.text.contains("must-not-leak"), "{}", r.text);
    let env: Map<String, Value> = serde_json::from_str(&r.text).unwrap();
    assert!(!env.contains_key("ANTHROPIC_API_KEY") && !env.contains_key("OPENAI_API_KEY"));
    assert_eq!(env["MY_SETTING"], "configured");
    for key in env.keys() {
        assert!(
            ["PATH", "HOME", "LANG", "MY_SETTING"].contains(&key.as_str()),
            "unexpected variable {key} in the server's environment"
        );
    }
    if std::env::var_os("PATH").is_some() {
        assert!(env.contains_key("PATH"));
    }
    conn.shutdown().await;
}

#[tokio::test]
async fn long_running_operation_reports_progress_and_completes() {
    let conn = connect().await;
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = seen.clone();
    let r = conn
        .call_tool(
            "trigger-long-running-operation",
            authorized(args(json!({"duration": 1, "steps": 4}))),
            CancellationToken::new(),
            move |p, total, _msg| sink.lock().unwrap().push((p, total)),
        )
        .await
        .unwrap();
    assert!(r.text.contains("completed"), "{}", r.text);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(
        seen.iter().all(|(_, total)| *total == Some(4.0)),
        "{seen:?}"
    );
    let mut progress: Vec<f64> = seen.iter().map(|(p, _)| *p).collect();
    progress.sort_by(f64::total_cmp);
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0]);
    conn.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_long_call_returns_at_once_and_the_session_goes_on() {
    let conn = connect().await;
    let cancel = CancellationToken::new();
    let first = Arc::new(tokio::sync::Notify::new());
    let notify = first.clone();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        // Cancel once the operation is visibly under way.
        notify.notified().await;
        canceller.cancel();
    });
    let started = Instant::now();
    let err = conn
        .call_tool(
            "trigger-long-running-operation",
            authorized(args(json!({"duration": 30, "steps": 60}))),
            cancel.clone(),
            move |_, _, _| first.notify_one(),
        )
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, McpError::Cancelled { .. }), "{err}");
    assert!(err.to_string().contains("`everything`"), "{err}");
    // First progress after ~0.5 s; the call must end well within 2 s of it.
    assert!(elapsed < Duration::from_millis(2500), "took {elapsed:?}");

    let r = conn
        .call_tool(
            "echo",
            authorized(args(json!({"message": "still here"}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert_eq!(r.text, "Echo: still here");
    conn.shutdown().await;
}

#[tokio::test]
async fn dropping_the_connection_kills_the_server() {
    let conn = connect().await;
    let pid = conn.process_id().unwrap();
    assert!(!process_gone(pid));
    drop(conn);
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "server {pid} survived the drop"
    );
}

#[tokio::test]
async fn streamable_http_lists_and_calls() {
    let port = free_port();
    let mut server = spawn_everything_http(port).await;
    let cfg = ServerConfig::new(
        "everything-http",
        Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            bearer_token: Some("test-token".into()),
        },
    );
    let conn = McpConnection::connect(&cfg).await.unwrap();
    assert_eq!(conn.info().name, "mcp-servers/everything");
    assert_eq!(conn.process_id(), None);
    let tools = conn.list_tools().await.unwrap();
    assert!(tools
        .iter()
        .any(|t| t.exposed_name == "everything-http__echo"));
    let r = conn
        .call_tool(
            "echo",
            authorized(args(json!({"message": "over http"}))),
            CancellationToken::new(),
            no_progress,
        )
        .await
        .unwrap();
    assert_eq!(r.text, "Echo: over http");

    let seen: Arc<Mutex<Vec<f64>>> = Arc::default();
    let sink = seen.clone();
    let r = conn
        .call_tool(
            "trigger-long-running-operation",
            authorized(args(json!({"duration": 0.4, "steps": 2}))),
            CancellationToken::new(),
            move |p, _, _| sink.lock().unwrap().push(p),
        )
        .await
        .unwrap();
    assert!(r.text.contains("completed"), "{}", r.text);
    assert_eq!(seen.lock().unwrap().len(), 2);

    conn.shutdown().await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn http_to_a_closed_port_fails_to_start_without_hanging() {
    let port = free_port();
    let mut cfg = ServerConfig::new(
        "nobody",
        Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            bearer_token: None,
        },
    );
    cfg.startup_timeout = Duration::from_secs(10);
    let started = Instant::now();
    let err = McpConnection::connect(&cfg).await.unwrap_err();
    assert!(
        matches!(
            err,
            McpError::StartFailed { .. } | McpError::StartTimeout { .. }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("`nobody`"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(11));
}
