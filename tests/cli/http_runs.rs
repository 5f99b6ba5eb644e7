//! End-to-end: multi-turn runs through the `bearagent` binary against a
//! loopback server speaking each protocol, and a check that an API key
//! never reaches the database, the logs or the output.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{serve, sse, Canned};
use serde_json::Value;

const KEY: &str = "sk-bearagent-LEAKCHECK-7f3a9c41e2";

fn chat_turns() -> Vec<Canned> {
    vec![
        Canned::sse(&sse(&[
            (
                "",
                r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}"#,
            ),
            (
                "",
                r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"notes.md\"}"}}]},"finish_reason":null}]}"#,
            ),
            (
                "",
                r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            ),
            (
                "",
                r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}"#,
            ),
            ("", "[DONE]"),
        ])),
        Canned::sse(&sse(&[
            (
                "",
                r#"{"id":"c2","choices":[{"index":0,"delta":{"role":"assistant","content":"The notes say "},"finish_reason":null}]}"#,
            ),
            (
                "",
                r#"{"id":"c2","choices":[{"index":0,"delta":{"content":"hello."},"finish_reason":null}]}"#,
            ),
            (
                "",
                r#"{"id":"c2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            ),
            (
                "",
                r#"{"id":"c2","choices":[],"usage":{"prompt_tokens":80,"completion_tokens":6,"total_tokens":86}}"#,
            ),
            ("", "[DONE]"),
        ])),
    ]
}

fn responses_turns() -> Vec<Canned> {
    vec![
        Canned::sse(&sse(&[
            (
                "response.created",
                r#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}"#,
            ),
            (
                "response.output_item.added",
                r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read_file","arguments":"","status":"in_progress"}}"#,
            ),
            (
                "response.function_call_arguments.delta",
                r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"path\":\"notes.md\"}"}"#,
            ),
            (
                "response.function_call_arguments.done",
                r#"{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"path\":\"notes.md\"}"}"#,
            ),
            (
                "response.output_item.done",
                r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"notes.md\"}","status":"completed"}}"#,
            ),
            (
                "response.completed",
                r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"notes.md\"}","status":"completed"}],"usage":{"input_tokens":50,"output_tokens":10,"total_tokens":60}}}"#,
            ),
        ])),
        Canned::sse(&sse(&[
            (
                "response.created",
                r#"{"type":"response.created","response":{"id":"resp_2","status":"in_progress","output":[]}}"#,
            ),
            (
                "response.output_item.added",
                r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_2","role":"assistant","content":[],"status":"in_progress"}}"#,
            ),
            (
                "response.output_text.delta",
                r#"{"type":"response.output_text.delta","item_id":"msg_2","output_index":0,"content_index":0,"delta":"The notes say hello."}"#,
            ),
            (
                "response.completed",
                r#"{"type":"response.completed","response":{"id":"resp_2","status":"completed","output":[{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"The notes say hello."}]}],"usage":{"input_tokens":80,"output_tokens":6,"total_tokens":86}}}"#,
            ),
        ])),
    ]
}

fn anthropic_turns() -> Vec<Canned> {
    vec![
        Canned::sse(&sse(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":50,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}"#,
            ),
            ("ping", r#"{"type":"ping"}"#),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"notes.md\"}"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])),
        Canned::sse(&sse(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":80,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The notes say hello."}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])),
    ]
}

struct Outcome {
    env: support::Env,
    result: support::RunResult,
    requests: Vec<loopback::Recorded>,
}

fn run_against(protocol: &str, turns: Vec<Canned>) -> Outcome {
    let env = support::env();
    env.write("notes.md", "hello\n");
    let server = serve(turns);
    let out = env
        .command()
        .env("BEARAGENT_E2E_KEY", KEY)
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--provider",
            protocol,
            "--base-url",
            &server.base_url,
        ])
        .args([
            "--model",
            "test-model",
            "--api-key-env",
            "BEARAGENT_E2E_KEY",
            "--workspace",
        ])
        .arg(env.ws())
        .arg("what do the notes say?")
        .output()
        .unwrap();
    let result = support::RunResult::from_output_pub(out);
    let requests = server.requests.lock().unwrap().clone();
    Outcome {
        env,
        result,
        requests,
    }
}

fn assert_multi_turn(o: &Outcome) {
    let r = &o.result;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.assert_seqs_contiguous();
    let read = r.of_type("tool_call_completed");
    assert_eq!(read.len(), 1, "{}", r.stdout);
    assert_eq!(read[0]["payload"]["result"]["content"], "hello\n");
    assert_eq!(
        r.of_type("run_succeeded")[0]["payload"]["answer"],
        "The notes say hello."
    );
    let completed = r.of_type("model_call_completed");
    assert_eq!(completed[0]["payload"]["usage"]["input"], 50);
    assert_eq!(completed[1]["payload"]["usage"]["output"], 6);
    assert_eq!(o.requests.len(), 2);
    for req in &o.requests {
        assert_eq!(req.body["stream"], true);
        assert_eq!(req.body["model"], "test-model");
    }
}

#[test]
fn openai_chat_multi_turn_run() {
    let o = run_against("openai-chat", chat_turns());
    assert_multi_turn(&o);
    let req = &o.requests[1];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let messages = req.body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    let call = messages
        .iter()
        .find(|m| m["tool_calls"].is_array())
        .unwrap();
    assert_eq!(call["tool_calls"][0]["id"], "call_1");
}

#[test]
fn openai_responses_multi_turn_run() {
    let o = run_against("openai-responses", responses_turns());
    assert_multi_turn(&o);
    let req = &o.requests[1];
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let input = req.body["input"].as_array().unwrap();
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    assert_eq!(output["call_id"], "call_1");
}

#[test]
fn anthropic_multi_turn_run() {
    let o = run_against("anthropic", anthropic_turns());
    assert_multi_turn(&o);
    let req = &o.requests[1];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert!(req.header("anthropic-version").is_some());
    let messages = req.body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["tool_use_id"], "toolu_1");
}

/// An Anthropic stream that ends with `overloaded_error` after text has
/// arrived is retried: one retry event (with the failed attempt's input
/// tokens and the partial answer marked void), and the run succeeds with
/// the retry's answer — the partial text is never the answer.
#[test]
fn an_overload_mid_stream_is_retried_and_the_run_succeeds() {
    let mut turns = anthropic_turns();
    let overloaded = Canned::sse(&sse(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":80,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"PARTIAL-VOID "}}"#,
        ),
        (
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
    ]));
    turns.insert(1, overloaded);
    let o = run_against("anthropic", turns);
    let r = &o.result;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.assert_seqs_contiguous();
    let retries = r.of_type("model_call_retry_scheduled");
    assert_eq!(retries.len(), 1, "{}", r.stdout);
    assert_eq!(retries[0]["payload"]["discarded_partial"], true);
    o.env.keep("retry-mid-stream", &r.run_id());
    assert_eq!(retries[0]["payload"]["usage"]["input"], 80);
    assert_eq!(
        r.of_type("run_succeeded")[0]["payload"]["answer"],
        "The notes say hello."
    );
    let completed = r.of_type("model_call_completed");
    assert!(!completed[1]["payload"]["text"]
        .as_str()
        .unwrap()
        .contains("PARTIAL-VOID"));
    assert!(
        r.stdout.contains(r#""kind":"text_discarded""#),
        "{}",
        r.stdout
    );
    assert_eq!(o.requests.len(), 3);
    // The failed attempt's tokens count in the run's usage: 50 + 80 + 80.
    let inspect = o.env.bearagent(&["inspect", &r.run_id(), "--json"]);
    let run: Value = serde_json::from_slice(&inspect.stdout).unwrap();
    assert_eq!(run["usage"]["input"], 210, "{run}");
}

fn grep_tree(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            hits.extend(grep_tree(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path) {
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                hits.push(path.display().to_string());
            }
        }
    }
    hits
}

#[test]
fn the_api_key_never_reaches_the_database_logs_or_output() {
    // A good run, then one whose server rejects the key and echoes it back.
    let mut turns = anthropic_turns();
    let ok = run_against("anthropic", std::mem::take(&mut turns));
    assert_eq!(ok.result.code, 0, "{}", ok.result.stderr);
    assert!(!ok.result.stdout.contains(KEY) && !ok.result.stderr.contains(KEY));

    let env = &ok.env;
    let server = serve(vec![Canned {
        status: 401,
        content_type: "application/json",
        body: format!(
            r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {KEY}"}}}}"#
        ),
    }]);
    let out = env
        .command()
        .env("BEARAGENT_E2E_KEY", KEY)
        .args([
            "run",
            "--approve",
            "all",
            "--provider",
            "anthropic",
            "--base-url",
            &server.base_url,
        ])
        .args([
            "--model",
            "m",
            "--api-key-env",
            "BEARAGENT_E2E_KEY",
            "--workspace",
        ])
        .arg(env.ws())
        .arg("second run")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("401"),
        "the error names the status: {stdout}"
    );
    assert!(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "key in output:\n{stdout}\n{stderr}"
    );

    // Inspect, events and runs output too.
    let runs = env.bearagent(&["runs", "--json"]);
    let listing = String::from_utf8_lossy(&runs.stdout).to_string();
    assert!(!listing.contains(KEY));
    for line in listing.lines() {
        let id = serde_json::from_str::<Value>(line).unwrap()["run_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let events = env.bearagent(&["events", &id, "--json"]);
        assert!(!String::from_utf8_lossy(&events.stdout).contains(KEY));
    }
    let hits = grep_tree(env.home.path(), KEY);
    assert!(hits.is_empty(), "the key was written to {hits:?}");
    assert!(env.home.path().join("bearagent.db").exists());
    assert!(
        env.home.path().join("logs").read_dir().unwrap().count() > 0,
        "a log file exists"
    );
}

#[test]
fn config_check_names_the_line_and_field_of_a_mistake() {
    let env = support::env();
    let config = env.home.path().join("config.toml");
    std::fs::write(
        &config,
        "version = 1\n[providers.local]\nprotocol = \"openai-chat\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\nkey = \"none\"\nmodle = \"typo\"\n",
    )
    .unwrap();
    let out = env.bearagent(&["config", "check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("config.toml:7:"), "{stderr}");
    assert!(stderr.contains("modle"), "{stderr}");

    std::fs::write(&config, "version = 1\n[providers.local]\nprotocol = \"openai-chat\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\nkey = { env = \"NOT_SET_ANYWHERE_42\" }\n").unwrap();
    let out = env.bearagent(&["config", "check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("provider local") && stdout.contains("(MISSING)"),
        "{stdout}"
    );
}

#[test]
fn providers_test_reports_latency_or_the_classified_error() {
    let env = support::env();
    let server = serve(vec![
        Canned::sse(&sse(&[
            (
                "",
                r#"{"choices":[{"index":0,"delta":{"content":"OK"},"finish_reason":null}]}"#,
            ),
            (
                "",
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            ),
            ("", "[DONE]"),
        ])),
        Canned {
            status: 404,
            content_type: "application/json",
            body: r#"{"error":{"message":"no such model"}}"#.into(),
        },
    ]);
    let args = [
        "providers",
        "test",
        "openai-chat",
        "--base-url",
        &server.base_url,
        "--model",
        "m",
    ];
    let ok = env.bearagent(&args);
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{stdout}");
    assert!(stdout.starts_with("ok: m answered in"), "{stdout}");
    let failed = env.bearagent(&args);
    let stdout = String::from_utf8_lossy(&failed.stdout);
    assert_eq!(failed.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("failed (provider)") && stdout.contains("404"),
        "{stdout}"
    );
}
