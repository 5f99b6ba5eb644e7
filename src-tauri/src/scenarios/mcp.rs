//! A run with MCP servers: the official reference server starts, a second
//! one cannot (`nope` is no program); the model calls its echo tool (read
//! only: no question), then a long operation that reports progress.

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::ApprovalMode;
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

fn config() -> String {
    let bin = bearagent_mcp::testkit::everything_bin();
    format!(
        "version = 1\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n[mcp_servers.broken]\ncommand = \"nope\"\n",
        bin.display().to_string()
    )
}

fn script() -> Vec<Value> {
    let call = |id: &str, tool: &str, args: Value, text: &str, usage: (u64, u64)| json!({"text": text, "tool_call": {"call_id": id, "tool_name": tool, "arguments": args}, "usage": {"input": usage.0, "output": usage.1}});
    vec![
        call(
            "call_1",
            "everything__echo",
            json!({"message": "hello from BearAgent"}),
            "Checking that the MCP server answers with its echo tool. ",
            (2_650, 36),
        ),
        call(
            "call_2",
            "everything__trigger-long-running-operation",
            json!({"duration": 2, "steps": 4}),
            "It answers. Now a longer operation that reports its progress. ",
            (2_930, 44),
        ),
        json!({"final_answer": "The MCP server echoed “hello from BearAgent” and finished the long operation.", "usage": {"input": 3_210, "output": 52}}),
    ]
}

async fn take() -> Value {
    let s = Session::new(Some(&config()));
    let profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        ..RunProfile::default()
    };
    let run = s.start(
        "Check the MCP server with echo",
        profile,
        provider(&script(), None),
    );
    s.take(run, "echo, then a long operation", vec![]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_scenario_is_what_the_runtime_records_now() {
    super::check("mcp", vec![take().await]);
}
