//! MCP servers in the config, through the `bearagent` binary: listed with
//! where their secrets come from (never the secrets), mistakes named by
//! file, line and field.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

#[test]
fn mcp_servers_are_listed_without_their_secrets_and_mistakes_are_named() {
    let env = support::env();
    let config = env.home.path().join("config.toml");
    std::fs::write(
        &config,
        r#"version = 1
[mcp_servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { LITERAL = "do-not-print-me", TOKEN = { env = "MY_TOKEN" } }

[mcp_servers.remote]
url = "http://127.0.0.1:3001/mcp"
bearer_token = { env = "REMOTE_TOKEN" }
enabled = false
"#,
    )
    .unwrap();
    let out = env.bearagent(&["mcp", "list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("everything") && text.contains("stdio: npx -y"),
        "{text}"
    );
    assert!(text.contains("TOKEN=$MY_TOKEN"), "{text}");
    assert!(
        text.contains("remote") && text.contains("disabled"),
        "{text}"
    );
    assert!(!text.contains("do-not-print-me"), "{text}");
    let json = env.bearagent(&["mcp", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["mcp_servers"].as_array().unwrap().len(), 2);
    assert!(!String::from_utf8_lossy(&json.stdout).contains("do-not-print-me"));

    std::fs::write(
        &config,
        "version = 1\n[mcp_servers.both]\ncommand = \"a\"\nurl = \"http://h\"\n",
    )
    .unwrap();
    let out = env.bearagent(&["config", "check"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mcp_servers.both.url"), "{err}");
    std::fs::write(
        &config,
        "version = 1\n[mcp_servers.x]\ncommand = \"a\"\ntypo = 1\n",
    )
    .unwrap();
    let out = env.bearagent(&["config", "check"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml:4:"), "{err}");
}

/// `mcp test` starts the official reference server, shows its handshake
/// and tools with their annotations, and stops it; a server that cannot
/// start is a classified error (exit 1) naming it.
#[test]
fn mcp_test_shows_the_reference_server_s_tools_or_the_classified_error() {
    let env = support::env();
    let server = everything_bin();
    std::fs::write(
        env.home.path().join("config.toml"),
        format!(
            r#"version = 1
[mcp_servers.everything]
command = "node"
args = ["{}", "stdio"]

[mcp_servers.missing]
command = "/nonexistent/mcp-server"
startup_timeout_secs = 5
"#,
            server.display()
        ),
    )
    .unwrap();
    let out = env.bearagent(&["mcp", "test", "everything", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"everything__echo"), "{names:?}");
    assert!(names.contains(&"everything__get-sum"), "{names:?}");
    assert!(v["protocol_version"]
        .as_str()
        .is_some_and(|p| !p.is_empty()));
    let human = env.bearagent(&["mcp", "test", "everything"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("everything__echo"), "{text}");

    let out = env.bearagent(&["mcp", "test", "missing"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing"), "{err}");
    let out = env.bearagent(&["mcp", "test", "nobody"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A scripted run with the reference server: its start is an event, echo
/// and get-sum return through the same path as every tool, a tool the
/// server does not mark read-only is refused without a terminal to ask
/// on, and `bearagent events` shows all of it.
#[test]
fn a_run_calls_the_reference_server_s_tools_and_records_the_server() {
    let env = support::env();
    let server = everything_bin();
    std::fs::write(
        env.home.path().join("config.toml"),
        format!(
            "version = 1\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [\"{}\", \"stdio\"]\n",
            server.display()
        ),
    )
    .unwrap();
    let call = |tool: &str, args: serde_json::Value| serde_json::json!({"tool_call": {"tool_name": tool, "arguments": args}});
    let run = env.run(
        serde_json::json!([
            call("everything__echo", serde_json::json!({"message": "hi there"})),
            call("everything__get-sum", serde_json::json!({"a": 19, "b": 23})),
            call("everything__toggle-simulated-logging", serde_json::json!({})),
            {"final_answer": "done"}
        ]),
        &["--approve", "reads"],
        "use the reference server",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let started = run.of_type("mcp_server_started");
    assert_eq!(started.len(), 1, "{}", run.stdout);
    assert_eq!(started[0]["payload"]["server"], "everything");
    let results: Vec<String> = run
        .events
        .iter()
        .filter_map(|e| match e["payload"]["type"].as_str() {
            Some("tool_call_completed") | Some("tool_call_failed") => {
                Some(e["payload"]["result"]["content"].as_str()?.to_owned())
            }
            _ => None,
        })
        .collect();
    assert!(results[0].contains("hi there"), "{results:?}");
    assert!(results[1].contains("42"), "{results:?}");
    assert!(results[2].contains("denied"), "{results:?}");
    env.keep("mcp-reference-server", &run.run_id());
    let human = env.bearagent(&["events", &run.run_id()]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("mcp everything: mcp-servers/everything"),
        "{text}"
    );
}

/// The reference server, installed into tests/mcp by scripts/setup.sh.
fn everything_bin() -> std::path::PathBuf {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let server = repo.join("tests/mcp/node_modules/.bin/mcp-server-everything");
    assert!(
        server.exists(),
        "run `npm ci --prefix tests/mcp` (scripts/setup.sh does) first"
    );
    server
}
