//! Follow-ups and forks through the `bearagent` binary against a loopback
//! model: `--continue` sends the parent's conversation then the new
//! message; `--fork --at` sends nothing after the branch point; bad
//! parents are usage errors (exit 2) that write nothing.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{chat_text, serve, sse, Canned};
use serde_json::Value;

fn chat_read(path: &str) -> Canned {
    Canned::sse(&sse(&[
        (
            "",
            &format!(
                r#"{{"id":"r","choices":[{{"index":0,"delta":{{"role":"assistant","content":"Reading it.","tool_calls":[{{"index":0,"id":"call_r","type":"function","function":{{"name":"read_file","arguments":"{{\"path\":\"{path}\"}}"}}}}]}},"finish_reason":null}}]}}"#
            ),
        ),
        (
            "",
            r#"{"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ),
        ("", "[DONE]"),
    ]))
}

/// `bearagent run --json --approve all --provider openai-chat …` + extra.
fn run(env: &support::Env, base_url: &str, extra: &[&str]) -> support::RunResult {
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
        .args(["--base-url", base_url, "--model", "m"])
        .args(extra)
        .output()
        .unwrap();
    support::RunResult::from_output_pub(out)
}

/// (role, content or "calls") of each message of a recorded request.
fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| match m["content"].as_str() {
            Some(c) => format!("{}: {c}", m["role"].as_str().unwrap()),
            None => format!("{}: (calls)", m["role"].as_str().unwrap()),
        })
        .collect()
}

fn parent(env: &support::Env) -> String {
    env.write("a.md", "alpha\n");
    let server = serve(vec![chat_read("a.md"), chat_text("a.md says alpha")]);
    let ws = env.ws().display().to_string();
    let r = run(env, &server.base_url, &["--workspace", &ws, "read a.md"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.run_id()
}

#[test]
fn a_follow_up_sends_the_parents_conversation_then_the_new_message() {
    let env = support::env();
    let parent = parent(&env);
    let server = serve(vec![chat_text("tests added")]);
    // No --workspace: the parent's.
    let r = run(
        &env,
        &server.base_url,
        &["--continue", &parent, "now add tests"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let created = &r.of_type("run_created")[0]["payload"];
    assert_eq!(created["parent"]["run_id"], parent.as_str());
    assert_eq!(created["parent"]["fork"], false);
    env.keep("follow-up", &r.run_id());
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(
        roles(&requests[0].body),
        [
            "user: read a.md",
            "assistant: Reading it.",
            "tool: alpha\n",
            "assistant: a.md says alpha",
            "user: now add tests",
        ]
    );
}

#[test]
fn a_fork_sends_nothing_after_its_branch_point() {
    let env = support::env();
    let parent = parent(&env);
    let server = serve(vec![chat_text("ok")]);
    let r = run(
        &env,
        &server.base_url,
        &["--fork", &parent, "--at", "2", "read b.md instead"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.of_type("run_created")[0]["payload"]["parent"]["fork"],
        true
    );
    env.keep("fork", &r.run_id());
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(
        roles(&requests[0].body),
        ["user: read a.md", "user: read b.md instead"]
    );
}

#[test]
fn bad_parents_are_usage_errors_and_write_nothing() {
    let env = support::env();
    let parent = parent(&env);
    let before = env.runs().len();
    let unknown = uuid_like();
    for args in [
        vec!["--continue", "not-a-run-id", "x"],
        vec!["--continue", unknown.as_str(), "x"],
        vec!["--fork", parent.as_str(), "--at", "999", "x"],
        vec!["--fork", parent.as_str(), "x"],
        vec!["--at", "2", "x"],
        vec![
            "--continue",
            parent.as_str(),
            "--fork",
            parent.as_str(),
            "--at",
            "1",
            "x",
        ],
    ] {
        let r = run(&env, "http://127.0.0.1:9", &args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    }
    let past = run(
        &env,
        "http://127.0.0.1:9",
        &["--fork", &parent, "--at", "999", "x"],
    );
    assert!(
        past.stderr.contains("cannot fork at 999"),
        "{}",
        past.stderr
    );
    assert_eq!(env.runs().len(), before);
}

/// A well-formed run id that names no run.
fn uuid_like() -> String {
    "00000000-0000-7000-8000-000000000000".to_owned()
}

/// A config with a provider whose window is small: `context_window = 6000`.
fn tiny_window_config(env: &support::Env, base_url: &str) {
    std::fs::write(
        env.home.path().join("config.toml"),
        format!(
            "version = 1\n[providers.tiny]\nprotocol = \"openai-chat\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\nkey = \"none\"\ncontext_window = 6000\n"
        ),
    )
    .unwrap();
}

fn is_compaction(body: &Value) -> bool {
    let last = body["messages"].as_array().and_then(|m| m.last()).cloned();
    body.get("tools")
        .is_none_or(|t| t.as_array().is_none_or(|a| a.is_empty()))
        && last.is_some_and(|m| {
            m["content"]
                .as_str()
                .unwrap_or("")
                .starts_with("Compaction request")
        })
}

#[test]
fn a_run_reading_three_windows_compacts_and_succeeds_and_compact_prepares_a_follow_up() {
    let env = support::env();
    let mut turns = Vec::new();
    for i in 0..6 {
        let text: String = (0..9_000)
            .map(|j| char::from(b'a' + ((i + j) % 26) as u8))
            .collect();
        env.write(&format!("part{i}.txt"), &text);
        turns.push(chat_read(&format!("part{i}.txt")));
    }
    turns.push(chat_text("read all six parts"));
    turns.push(chat_text("nothing more to do"));
    let mut turns = turns.into_iter();
    let server = loopback::serve_with(move |body| {
        if is_compaction(body) {
            Some(chat_text(
                "Handoff: the goal is to read six parts; parts read so far are done.",
            ))
        } else {
            turns.next()
        }
    });
    tiny_window_config(&env, &server.base_url);
    let ws = env.ws().display().to_string();
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--provider",
            "tiny",
            "--workspace",
            &ws,
        ])
        .arg("read every part")
        .output()
        .unwrap();
    let r = support::RunResult::from_output_pub(out);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let compactions = r.of_type("context_compacted");
    assert!(!compactions.is_empty(), "{:?}", r.types());
    env.keep("compaction", &r.run_id());
    let requests = server.requests.lock().unwrap().clone();
    assert!(requests.iter().any(|q| is_compaction(&q.body)));
    for q in &requests {
        let bytes = serde_json::to_vec(&q.body).unwrap().len();
        assert!(bytes / 4 <= 6_000, "a request of {bytes} bytes");
    }
    // Compacting the finished run by hand: its follow-up starts from it.
    let run = r.run_id();
    let compact = env.bearagent(&["compact", &run, "--json"]);
    assert!(
        compact.status.success(),
        "{}",
        String::from_utf8_lossy(&compact.stderr)
    );
    let done: Value = serde_json::from_slice(&compact.stdout).unwrap();
    assert!(done["tokens_after"].as_u64() < done["tokens_before"].as_u64());
    let follow = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--continue",
            &run,
            "and now?",
        ])
        .output()
        .unwrap();
    let follow = support::RunResult::from_output_pub(follow);
    assert_eq!(follow.code, 0, "{}\n{}", follow.stdout, follow.stderr);
    let requests = server.requests.lock().unwrap().clone();
    let first = requests.last().unwrap();
    let text = serde_json::to_string(&first.body).unwrap();
    assert!(
        text.contains("Handoff: the goal is to read six parts"),
        "{text}"
    );
    assert!(
        !text.contains(&"abcdefghij".repeat(3)),
        "the old reads are gone"
    );
}
