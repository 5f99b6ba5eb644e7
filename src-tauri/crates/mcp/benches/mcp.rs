//! What the MCP client costs, against the reference server.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-mcp cargo bench -p bearagent-mcp --bench mcp`
//!
//! 1. Startup: `McpConnection::connect` (spawn `node … stdio`, handshake) to
//!    the first complete `list_tools`, median of 5 fresh servers.
//! 2. Per-call overhead: 200 sequential `echo` calls through `McpConnection`
//!    against 200 hand-written newline-delimited JSON-RPC `tools/call`
//!    round trips on a second server process's stdin/stdout (the floor:
//!    no SDK, no progress routing, no result rendering). Both sides get 20
//!    untimed warm-up calls first, so node's JIT is warm for both.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/common/mod.rs"]
mod common;

use bearagent_mcp::testkit::authorized;
use bearagent_mcp::{CancellationToken, McpConnection};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const STARTS: usize = 5;
const CALLS: usize = 200;
const WARMUP: usize = 20;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

async fn run() {
    let cfg = common::everything_stdio(vec![]);

    let mut starts = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let t = Instant::now();
        let conn = McpConnection::connect(&cfg).await.unwrap();
        let tools = conn.list_tools().await.unwrap();
        starts.push(t.elapsed());
        assert!(tools.iter().any(|t| t.name == "echo"));
        conn.shutdown().await;
    }
    starts.sort();
    println!(
        "startup  connect → first tool list: median {:.1} ms (min {:.1}, max {:.1}, n={STARTS})",
        ms(starts[STARTS / 2]),
        ms(starts[0]),
        ms(starts[STARTS - 1])
    );

    let conn = McpConnection::connect(&cfg).await.unwrap();
    conn.list_tools().await.unwrap();
    let echo = |i: usize| {
        json!({"message": format!("ping {i}")})
            .as_object()
            .cloned()
            .unwrap()
    };
    for i in 0..WARMUP {
        conn.call_tool(
            "echo",
            authorized(echo(i)),
            CancellationToken::new(),
            |_, _, _| {},
        )
        .await
        .unwrap();
    }
    let t = Instant::now();
    for i in 0..CALLS {
        let r = conn
            .call_tool(
                "echo",
                authorized(echo(i)),
                CancellationToken::new(),
                |_, _, _| {},
            )
            .await
            .unwrap();
        assert_eq!(r.text, format!("Echo: ping {i}"));
    }
    let ours = t.elapsed();
    conn.shutdown().await;

    let raw = raw_round_trips().await;

    println!(
        "calls    McpConnection: {CALLS} echo calls in {:.1} ms = {:.0} µs/call",
        ms(ours),
        us(ours) / CALLS as f64
    );
    println!(
        "calls    raw JSON-RPC:  {CALLS} echo calls in {:.1} ms = {:.0} µs/call",
        ms(raw),
        us(raw) / CALLS as f64
    );
    println!(
        "ratio    McpConnection / raw = {:.2}x (+{:.0} µs/call)",
        ours.as_secs_f64() / raw.as_secs_f64(),
        (us(ours) - us(raw)) / CALLS as f64
    );
}

/// The floor: the same server, JSON-RPC lines written and read by hand.
async fn raw_round_trips() -> Duration {
    let mut child = tokio::process::Command::new("node")
        .arg(common::everything_bin())
        .arg("stdio")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |msg: Value| {
        let mut line = msg.to_string();
        line.push('\n');
        stdin.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}),
    )
    .await;
    read_response(&mut lines, 0).await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    let mut elapsed = Duration::ZERO;
    for i in 0..WARMUP + CALLS {
        let id = i as u64 + 1;
        let t = Instant::now();
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": format!("ping {i}")}}}))
        .await;
        let r = read_response(&mut lines, id).await;
        if i >= WARMUP {
            elapsed += t.elapsed();
        }
        assert_eq!(r["result"]["content"][0]["text"], format!("Echo: ping {i}"));
    }
    drop(stdin);
    let _ = child.kill().await;
    elapsed
}

async fn read_response(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    id: u64,
) -> Value {
    while let Some(line) = lines.next_line().await.unwrap() {
        let msg: Value = serde_json::from_str(&line).unwrap();
        if msg["id"] == id {
            return msg;
        }
    }
    panic!("server closed stdout before answering {id}");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
