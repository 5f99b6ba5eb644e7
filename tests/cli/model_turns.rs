//! End-to-end model turns through the `bearagent` binary against a
//! loopback server: several tool calls in one turn, and JSON-text tool
//! mode for a chat model without tool calling.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{serve, sse, Canned};

/// A model that asks for two reads in one turn: both run, in order, and the
/// follow-up request answers both ids (Chat: one tool message per id).
#[test]
fn several_tool_calls_in_one_turn_run_in_order() {
    let env = support::env();
    env.write("a.md", "alpha\n");
    env.write("b.md", "beta\n");
    let two_calls = Canned::sse(&sse(&[
        (
            "",
            r#"{"id":"p","choices":[{"index":0,"delta":{"role":"assistant","content":"Reading both.","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.md\"}"}},{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.md\"}"}}]},"finish_reason":null}]}"#,
        ),
        (
            "",
            r#"{"id":"p","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ),
        ("", "[DONE]"),
    ]));
    let server = serve(vec![two_calls, chat_text("alpha and beta")]);
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "reads",
            "--provider",
            "openai-chat",
        ])
        .args([
            "--base-url",
            &server.base_url,
            "--model",
            "m",
            "--workspace",
        ])
        .arg(env.ws())
        .arg("read a and b")
        .output()
        .unwrap();
    let r = support::RunResult::from_output_pub(out);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.assert_seqs_contiguous();
    let done: Vec<&str> = r
        .of_type("tool_call_completed")
        .iter()
        .map(|e| e["payload"]["result"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(done, ["alpha\n", "beta\n"]);
    env.keep("several-calls-a-turn", &r.run_id());
    let completed = r.of_type("model_call_completed");
    assert_eq!(completed[0]["payload"]["action"]["type"], "tool_calls");
    assert_eq!(completed[0]["payload"]["text"], "Reading both.");
    let requests = server.requests.lock().unwrap().clone();
    let messages = requests[1].body["messages"].as_array().unwrap();
    let assistant = messages.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["tool_calls"].as_array().unwrap().len(), 2);
    let answered: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(answered, ["call_a", "call_b"]);
}

/// A chat completion whose whole content is `text` (a plain chat model).
fn chat_text(text: &str) -> Canned {
    loopback::chat_answer(text, Some((40, 9)))
}

/// JSON-text tool mode against a model with no tool calling: it answers in
/// text; one prose reply is fed back as invalid output, then its JSON tool
/// call runs and its JSON final answer ends the run.
#[test]
fn json_text_mode_runs_a_plain_chat_model_through_tools() {
    let env = support::env();
    env.write("notes.md", "hello\n");
    let server = serve(vec![
        chat_text("Sure, let me look at the notes."),
        chat_text(
            r#"{"type":"tool_call","call_id":"j1","tool_name":"read_file","arguments":{"path":"notes.md"}}"#,
        ),
        chat_text(r#"{"type":"final_answer","content":"The notes say hello."}"#),
    ]);
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--provider",
            "openai-chat",
        ])
        .args(["--base-url", &server.base_url, "--model", "plain-chat"])
        .args(["--tool-mode", "json-text", "--workspace"])
        .arg(env.ws())
        .arg("what do the notes say?")
        .output()
        .unwrap();
    let r = support::RunResult::from_output_pub(out);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.assert_seqs_contiguous();
    let failed = r.of_type("model_call_failed");
    assert_eq!(failed.len(), 1, "{}", r.stdout);
    assert_eq!(failed[0]["payload"]["class"], "invalid_output");
    assert_eq!(failed[0]["payload"]["usage"]["input"], 40);
    env.keep("json-text-mode", &r.run_id());
    let read = r.of_type("tool_call_completed");
    assert_eq!(read[0]["payload"]["result"]["content"], "hello\n");
    assert_eq!(read[0]["payload"]["result"]["call_id"], "j1");
    assert_eq!(
        r.of_type("run_succeeded")[0]["payload"]["answer"],
        "The notes say hello."
    );
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert!(req.body.get("tools").is_none(), "{}", req.body);
        let system = req.body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("## read_file"), "{system}");
        assert!(system.contains(r#"{"type":"final_answer""#), "{system}");
    }
    // The last request carries the call as assistant JSON and its result
    // as user JSON, with the model's own call id.
    let messages = requests[2].body["messages"].as_array().unwrap();
    assert!(messages.iter().all(|m| m.get("tool_calls").is_none()));
    let text: Vec<String> = messages
        .iter()
        .map(|m| format!("{}:{}", m["role"].as_str().unwrap(), m["content"]))
        .collect();
    assert!(
        text.iter()
            .any(|t| t.starts_with("assistant:") && t.contains(r#"\"call_id\":\"j1\""#)),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.starts_with("user:") && t.contains("tool_result")),
        "{text:?}"
    );
}

/// A chat turn asking to read `path`, billed 1 000 input / 100 output
/// tokens, 200 of the input from the prompt cache.
fn chat_read(id: &str, path: &str) -> Canned {
    Canned::sse(&sse(&[
        (
            "",
            &format!(
                r#"{{"id":"r","choices":[{{"index":0,"delta":{{"role":"assistant","tool_calls":[{{"index":0,"id":"{id}","type":"function","function":{{"name":"read_file","arguments":"{{\"path\":\"{path}\"}}"}}}}]}},"finish_reason":null}}]}}"#
            ),
        ),
        (
            "",
            r#"{"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ),
        (
            "",
            r#"{"id":"r","choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":100,"total_tokens":1100,"prompt_tokens_details":{"cached_tokens":200}}}"#,
        ),
        ("", "[DONE]"),
    ]))
}

/// A provider priced in the config and a `--max-cost`: every call is
/// costed on its event, and the run stops out of budget (exit 3) before a
/// call that could take it past the cap.
#[test]
fn a_priced_provider_with_max_cost_stops_before_the_cap() {
    let env = support::env();
    let turns: Vec<Canned> = (0..12)
        .map(|i| {
            env.write(&format!("f{i}.md"), "x\n");
            chat_read(&format!("c{i}"), &format!("f{i}.md"))
        })
        .collect();
    let server = serve(turns);
    std::fs::write(
        env.home.path().join("config.toml"),
        format!(
            r#"version = 1
[providers.priced]
protocol = "openai-chat"
base_url = "{}"
model = "m"
key = "none"
price = {{ input_per_mtok = 10.0, output_per_mtok = 30.0, cached_input_per_mtok = 1.0 }}
"#,
            server.base_url
        ),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let out = env
            .command()
            .args(["run", "--json", "--approve", "all", "--provider", "priced"])
            .args(extra)
            .arg("--workspace")
            .arg(env.ws())
            .arg("read everything")
            .output()
            .unwrap();
        support::RunResult::from_output_pub(out)
    };
    // Each call: 800 × $10 + 200 × $1 + 100 × $30 per MTok = 11 200 µ$.
    // Its worst case is far more (8 192 output tokens at $30/MTok), so a
    // $0.30 cap lets a few calls through and then stops the run.
    let r = run(&["--max-cost", "0.30"]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    r.assert_seqs_contiguous();
    let costs: Vec<u64> = r
        .of_type("model_call_completed")
        .iter()
        .map(|e| e["payload"]["cost_micro_usd"].as_u64().unwrap())
        .collect();
    assert!(!costs.is_empty());
    assert!(costs.iter().all(|c| *c == 11_200), "{costs:?}");
    let spent: u64 = costs.iter().sum();
    assert!(spent <= 300_000, "spent {spent} µ$ past the cap");
    let exhausted = r.of_type("budget_exhausted");
    assert_eq!(exhausted[0]["payload"]["which"], "cost");
    // inspect --json carries the total.
    let inspect = env.bearagent(&["inspect", &r.run_id(), "--json"]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains(&format!("\"cost_micro_usd\": {spent}")),
        "{text}"
    );

    // Bad limits are usage errors (exit 2), and nothing runs.
    for bad in ["0", "-1", "abc", "NaN"] {
        let r = run(&["--max-cost", bad]);
        assert_eq!(r.code, 2, "--max-cost {bad}: {}", r.stderr);
    }
}
