//! End-to-end delegation (issue 54) through the real `bearagent` binary
//! against a loopback OpenAI-compatible server: a parent starts read-only
//! children with the `task` tool; their results, failures, budgets,
//! cancellation, a kill and replay are checked from outside, as a user
//! (or another process) sees them.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{sse, Canned};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const GOAL: &str = "PARENT-GOAL: compare the three notes";

/// A streamed reply making these tool calls `(id, name, arguments)`.
fn calls(calls: &[(String, &str, Value)]) -> Canned {
    let mut chunks: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, (id, name, args))| {
            json!({"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null,
                "tool_calls": [{"index": i, "id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}]}, "finish_reason": null}]})
            .to_string()
        })
        .collect();
    chunks.push(
        json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
            .to_string(),
    );
    chunks.push(json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).to_string());
    chunks.push("[DONE]".into());
    let events: Vec<(&str, &str)> = chunks.iter().map(|c| ("", c.as_str())).collect();
    Canned::sse(&sse(&events))
}

fn task(n: usize, label: &str) -> (String, &'static str, Value) {
    (
        format!("task_{n}"),
        "task",
        json!({"description": format!("read {label}"), "prompt": format!("CHILD-{label}: read {label}.md and say what it says")}),
    )
}

/// How many tool results the request carries (its turn in its run).
fn tool_results(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count())
}

/// The user's first message: the run's goal (a child's prompt).
fn goal_of(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

/// A loopback server answering each request on its own thread (children
/// call at the same time), picking the reply from the request body.
fn serve(respond: fn(&Value) -> Canned) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let mut length = 0usize;
                reader.read_line(&mut line).unwrap();
                loop {
                    let mut h = String::new();
                    reader.read_line(&mut h).unwrap();
                    if h.trim_end().is_empty() {
                        break;
                    }
                    if let Some((k, v)) = h.split_once(':') {
                        if k.eq_ignore_ascii_case("content-length") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let canned = respond(&body);
                let head = format!(
                    "HTTP/1.1 {} X\r\ncontent-type: {}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
                    canned.status,
                    canned.content_type,
                    canned.body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(canned.body.as_bytes());
            });
        }
    });
    base
}

/// The parent asks for three tasks, then answers with what came back.
fn parent(body: &Value) -> Canned {
    match tool_results(body) {
        0 => calls(&[task(1, "A"), task(2, "B"), task(3, "C")]),
        _ => loopback::chat_text("all three notes compared"),
    }
}

/// A child reads its note once, then answers.
fn reading_child(body: &Value) -> Canned {
    let goal = goal_of(body);
    let label = ["A", "B", "C"]
        .into_iter()
        .find(|l| goal.contains(&format!("CHILD-{l}")))
        .unwrap_or("A");
    match tool_results(body) {
        0 => calls(&[(
            format!("read_{label}"),
            "read_file",
            json!({"path": format!("{label}.md")}),
        )]),
        _ => loopback::chat_text(&format!("note {label} read")),
    }
}

fn is_parent(body: &Value) -> bool {
    goal_of(body).contains("PARENT-GOAL")
}

fn run_args(env: &support::Env, base: &str, extra: &[&str]) -> std::process::Command {
    let mut c = env.command();
    c.env("BEARAGENT_E2E_KEY", "none")
        .args(["run", "--json", "--delegate", "--provider", "openai-chat"])
        .args(["--base-url", base, "--model", "m", "--api-key-env"])
        .args(["BEARAGENT_E2E_KEY", "--workspace"])
        .arg(env.ws())
        .args(extra)
        .arg(GOAL);
    c
}

fn notes(env: &support::Env) {
    for l in ["A", "B", "C"] {
        env.write(&format!("{l}.md"), &format!("note {l}\n"));
    }
}

fn payload_of<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["payload"]["type"] == t)
        .map(|e| &e["payload"])
        .collect()
}

/// The runs `bearagent runs --json` lists as children of `parent`.
fn children_of(env: &support::Env, parent: &str) -> Vec<Value> {
    env.runs()
        .into_iter()
        .filter(|r| r["parent_run_id"] == parent)
        .collect()
}

#[test]
fn a_parent_starts_three_read_only_children_in_one_turn() {
    let env = support::env();
    notes(&env);
    let base = serve(|b| {
        if is_parent(b) {
            parent(b)
        } else {
            reading_child(b)
        }
    });
    let out = run_args(&env, &base, &[]).output().unwrap();
    let result = support::RunResult::from_output_pub(out);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let events = &result.events;
    // All three were started before any result was taken: they ran together.
    let seq_of = |t: &str| -> Vec<u64> {
        events
            .iter()
            .filter(|e| e["payload"]["type"] == t)
            .map(|e| e["seq"].as_u64().unwrap())
            .collect()
    };
    let started = seq_of("tool_call_started");
    let completed = seq_of("tool_call_completed");
    assert_eq!(
        (started.len(), completed.len()),
        (3, 3),
        "{}",
        result.stdout
    );
    assert!(started.iter().max() < completed.iter().min());
    for (label, done) in ["A", "B", "C"]
        .iter()
        .zip(payload_of(events, "tool_call_completed"))
    {
        let content = done["result"]["content"].as_str().unwrap();
        assert!(content.contains("succeeded"), "{content}");
        assert!(content.contains(&format!("note {label} read")), "{content}");
        assert!(
            content.contains(&format!("files read: {label}.md")),
            "{content}"
        );
    }
    let parent_id = result.run_id();
    assert_eq!(events[0]["payload"]["delegation"]["max_depth"], 2);
    let children = children_of(&env, &parent_id);
    assert_eq!(children.len(), 3);
    for child in &children {
        let id = child["run_id"].as_str().unwrap();
        let first = &env.events_of(id)[0]["payload"];
        assert_eq!(first["delegated_by"]["run_id"], parent_id.as_str());
        assert_eq!(first["delegated_by"]["depth"], 1);
        assert!(first["delegated_by"]["call_id"]
            .as_str()
            .unwrap()
            .starts_with("task_"));
        // Its own context: its prompt, nothing of the parent's goal.
        assert!(first["goal"].as_str().unwrap().starts_with("CHILD-"));
    }
    // The text runs list puts the children under their parent.
    let listed = String::from_utf8(env.bearagent(&["runs"]).stdout).unwrap();
    let lines: Vec<&str> = listed.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&parent_id))
        .unwrap();
    assert!(
        lines[at + 1..at + 4]
            .iter()
            .all(|l| l.trim_start().starts_with('└')),
        "{listed}"
    );
    // `events --children` prints the tree from the store: each child's
    // events indented and labelled, in time order after its task's start.
    let tree = env.bearagent(&["events", &parent_id, "--children"]);
    let tree = String::from_utf8(tree.stdout).unwrap();
    for label in ["A", "B", "C"] {
        let line = format!("    [read {label}] ");
        assert!(tree.lines().any(|l| l.starts_with(&line)), "{tree}");
    }
    let json = env.json_lines(&["events", &parent_id, "--children", "--json"]);
    let child_events: Vec<&Value> = json.iter().filter(|l| l["kind"] == "child_event").collect();
    assert!(child_events.len() >= 3 * 4, "{json:?}");
    assert!(child_events.iter().all(|l| l["depth"] == 1));
    let plain = env.json_lines(&["events", &parent_id, "--json"]);
    assert!(plain.iter().all(|l| l["kind"] != "child_event"));
    env.assert_replays(&result);
}

#[test]
fn a_failed_child_says_failed() {
    let env = support::env();
    let base = serve(|b| {
        if !is_parent(b) {
            return Canned {
                status: 400,
                content_type: "application/json",
                body: r#"{"error":{"message":"bad request for the child","type":"invalid_request_error"}}"#.into(),
            };
        }
        match tool_results(b) {
            0 => calls(&[task(1, "A")]),
            _ => loopback::chat_text("the helper failed"),
        }
    });
    let out = run_args(&env, &base, &[]).output().unwrap();
    let result = support::RunResult::from_output_pub(out);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let failed = payload_of(&result.events, "tool_call_failed");
    assert_eq!(failed.len(), 1, "{}", result.stdout);
    let content = failed[0]["result"]["content"].as_str().unwrap();
    assert!(content.contains("failed"), "{content}");
    assert!(!content.contains("succeeded"), "{content}");
    assert_eq!(failed[0]["result"]["is_error"], true);
    env.assert_replays(&result);
}

/// Children that never stop reading.
fn endless_child(body: &Value) -> Canned {
    let n = tool_results(body);
    calls(&[(format!("r{n}"), "read_file", json!({"path": "A.md"}))])
}

#[test]
fn the_parents_budget_caps_what_it_and_its_children_spend() {
    let env = support::env();
    notes(&env);
    let base = serve(|b| {
        if is_parent(b) {
            parent(b)
        } else {
            endless_child(b)
        }
    });
    let out = run_args(
        &env,
        &base,
        &["--max-model-calls", "12", "--approve", "all"],
    )
    .output()
    .unwrap();
    let result = support::RunResult::from_output_pub(out);
    let parent_id = result.run_id();
    let runs = env.runs();
    let parent = runs
        .iter()
        .find(|r| r["run_id"] == parent_id.as_str())
        .unwrap();
    let children = children_of(&env, &parent_id);
    assert_eq!(children.len(), 3);
    let calls = |r: &Value| r["model_calls"].as_u64().unwrap();
    let total: u64 = calls(parent) + children.iter().map(calls).sum::<u64>();
    assert!(total <= 12, "the tree made {total} model calls");
    for child in &children {
        assert_eq!(child["status"]["kind"], "budget_exhausted", "{child}");
    }
    for done in payload_of(&result.events, "tool_call_failed") {
        let content = done["result"]["content"].as_str().unwrap();
        assert!(content.contains("budget exhausted"), "{content}");
    }
    env.assert_replays(&result);
}

/// Children whose model never answers (until the test is over).
fn hanging_child(_: &Value) -> Canned {
    std::thread::sleep(Duration::from_secs(60));
    loopback::chat_text("too late")
}

/// Starts a parent whose three children hang in their model calls, and
/// returns once all three are running.
fn three_running_children(env: &support::Env) -> (Child, String) {
    let base = serve(|b| {
        if is_parent(b) {
            parent(b)
        } else {
            hanging_child(b)
        }
    });
    let mut child = run_args(env, &base, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut parent = None;
        let mut started = 0;
        for line in BufReader::new(stdout).lines() {
            let Ok(v) = serde_json::from_str::<Value>(&line.unwrap_or_default()) else {
                continue;
            };
            if v["kind"] == "event" && parent.is_none() {
                parent = v["event"]["run_id"].as_str().map(str::to_owned);
            }
            if v["kind"] == "child_event" && v["event"]["payload"]["type"] == "model_call_started" {
                started += 1;
                if started == 3 {
                    let _ = tx.send(parent.clone().unwrap());
                }
            }
        }
    });
    let parent = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    (child, parent)
}

#[test]
fn ctrl_c_ends_three_running_children_within_two_seconds() {
    let env = support::env();
    let (mut child, parent) = three_running_children(&env);
    let sent = Instant::now();
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    child.wait().unwrap();
    let took = sent.elapsed();
    println!("delegation: Ctrl-C to all three children ended: {took:?}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let children = children_of(&env, &parent);
    assert_eq!(children.len(), 3);
    for c in &children {
        assert_eq!(c["status"]["kind"], "cancelled", "{c}");
    }
    let events = env.events_of(&parent);
    assert_eq!(events.last().unwrap()["payload"]["type"], "run_cancelled");
    for done in payload_of(&events, "tool_call_failed") {
        assert!(done["result"]["content"]
            .as_str()
            .unwrap()
            .contains("cancelled"));
    }
}

#[test]
fn kill_9_leaves_no_child_running() {
    let env = support::env();
    let (mut child, parent) = three_running_children(&env);
    child.kill().unwrap();
    child.wait().unwrap();
    // The next BearAgent process settles the dead process's runs.
    let runs = env.runs();
    assert!(
        runs.iter().all(|r| r["status"]["kind"] != "running"),
        "{runs:?}"
    );
    let children = children_of(&env, &parent);
    assert_eq!(children.len(), 3);
    for c in &children {
        assert_eq!(c["status"]["kind"], "interrupted", "{c}");
    }
}

/// Parent → child "read A" → grandchild, each call asking (`--approve ask`).
fn asking_tree(body: &Value) -> Canned {
    let goal = goal_of(body);
    let first = tool_results(body) == 0;
    if goal.contains("PARENT-GOAL") {
        return match first {
            true => calls(&[task(1, "A")]),
            false => loopback::chat_text("the tree answered"),
        };
    }
    if goal.contains("GRANDCHILD") {
        return match first {
            true => calls(&[("read_deep".into(), "read_file", json!({"path": "A.md"}))]),
            false => loopback::chat_text("grandchild read A"),
        };
    }
    match first {
        true => calls(&[(
            "task_deep".into(),
            "task",
            json!({"description": "look deeper", "prompt": "GRANDCHILD: read A.md"}),
        )]),
        false => loopback::chat_text("child done"),
    }
}

#[test]
fn a_depth_2_childs_approval_is_asked_at_the_cli_prompt_and_reaches_it() {
    let env = support::env();
    notes(&env);
    let base = serve(asking_tree);
    let bin = env!("CARGO_BIN_EXE_bearagent");
    let line = format!(
        "{bin} run --json --delegate --approve ask --provider openai-chat --base-url {base} \
         --model m --api-key-env BEARAGENT_E2E_KEY --workspace '{}' '{GOAL}'",
        env.ws().display()
    );
    // `script` gives the CLI a terminal, so it asks instead of denying.
    let mut child = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("BEARAGENT_HOME", env.home.path())
        .env("BEARAGENT_E2E_KEY", "none")
        .env("NO_COLOR", "1")
        .env_remove("BEARAGENT_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // One yes each: the parent's task, the child's task, the grandchild's read.
    stdin.write_all(b"y\ny\ny\n").unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    drop(stdin);
    assert!(out.contains("helper \"read A\" asks:"), "{out}");
    assert!(out.contains("helper \"look deeper\" asks:"), "{out}");
    let runs = env.runs();
    let deep = runs
        .iter()
        .find(|r| r["depth"] == 2)
        .unwrap_or_else(|| panic!("no depth-2 run: {runs:?}"));
    assert_eq!(deep["status"]["kind"], "succeeded", "{deep}");
    let events = env.events_of(deep["run_id"].as_str().unwrap());
    let granted = payload_of(&events, "approval_granted");
    assert_eq!(granted.len(), 1, "{events:?}");
    assert_eq!(granted[0]["by"], "cli:user");
    let done = payload_of(&events, "tool_call_completed");
    assert!(done[0]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("note A"));

    // A follow-up of the depth-2 run is as deep: it may not delegate.
    let deep_id = deep["run_id"].as_str().unwrap();
    let out = env
        .command()
        .env("BEARAGENT_E2E_KEY", "none")
        .args(["run", "--json", "--delegate", "--continue", deep_id])
        .args([
            "--provider",
            "openai-chat",
            "--base-url",
            &base,
            "--model",
            "m",
        ])
        .args(["--api-key-env", "BEARAGENT_E2E_KEY", "and now?"])
        .output()
        .unwrap();
    let follow_up = support::RunResult::from_output_pub(out);
    assert_eq!(follow_up.code, 0, "{}", follow_up.stderr);
    let created = &follow_up.events[0]["payload"];
    assert_eq!(created["parent"]["run_id"], deep_id);
    assert!(created.get("delegation").is_none(), "{created}");
}
