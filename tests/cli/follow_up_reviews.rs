//! End-to-end through the real binary: a follow-up's model is told what
//! the user did to the parent's changes. A run rewrites two hunks of a
//! file and writes another; the user reverts hunk 1 (`revert --hunk 1`)
//! and the other file; the follow-up's first request, sent to a loopback
//! server speaking OpenAI Chat Completions, names both decisions, with
//! the reverted hunk's diff, before the new message.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{serve, sse, Canned};
use serde_json::{json, Value};

fn answer(text: &str) -> Canned {
    let delta = json!({"id": "c1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]});
    Canned::sse(&sse(&[
        ("", &delta.to_string()),
        (
            "",
            r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        ),
        (
            "",
            r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":3,"total_tokens":53}}"#,
        ),
        ("", "[DONE]"),
    ]))
}

/// Every message's text of a Chat Completions request, in order.
fn texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn a_follow_up_is_told_of_a_reverted_hunk_and_a_reverted_file() {
    let env = support::env();
    env.write("guide.md", "top\n1\n2\n3\n4\n5\n6\n7\n8\n9\nbottom\n");
    let first = env.run(
        json!([
            support::write("guide.md", "TOP\n1\n2\n3\n4\n5\n6\n7\n8\n9\nBOTTOM\n"),
            support::write("extra.md", "extra\n"),
            support::answer("written")
        ]),
        &["--approve", "all"],
        "edit the guide",
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let run = first.run_id();
    let hunk = env.bearagent(&["revert", &run, "guide.md", "--hunk", "1"]);
    assert!(
        hunk.status.success(),
        "{}",
        String::from_utf8_lossy(&hunk.stderr)
    );
    let file = env.bearagent(&["revert", &run, "extra.md"]);
    assert!(
        file.status.success(),
        "{}",
        String::from_utf8_lossy(&file.stderr)
    );
    assert_eq!(
        env.read("guide.md").unwrap(),
        "top\n1\n2\n3\n4\n5\n6\n7\n8\n9\nBOTTOM\n"
    );

    let server = serve(vec![answer("noted")]);
    let out = env
        .command()
        .env("BEARAGENT_E2E_KEY", "sk-test-not-a-real-key-000000")
        .args(["run", "--json", "--approve", "all", "--continue", &run])
        .args(["--provider", "openai-chat", "--base-url", &server.base_url])
        .args([
            "--model",
            "test-model",
            "--api-key-env",
            "BEARAGENT_E2E_KEY",
        ])
        .arg("go on")
        .output()
        .unwrap();
    let second = support::RunResult::from_output_pub(out);
    assert_eq!(second.code, 0, "{}\n{}", second.stdout, second.stderr);
    let requests = server.requests.lock().unwrap().clone();
    let told = texts(&requests[0].body);
    let at = |needle: &str| {
        told.iter()
            .position(|m| m.contains(needle))
            .unwrap_or_else(|| panic!("no message has {needle:?}: {told:#?}"))
    };
    let hunk_note = &told[at("reverted hunk 1 of your change to `guide.md`")];
    assert!(hunk_note.contains("-top\n+TOP\n"), "{hunk_note}");
    let file_note = at("reverted your change to `extra.md`");
    // After the earlier run's answer, before the new message.
    assert!(
        at("written") < at("guide.md`") && file_note < at("go on"),
        "{told:#?}"
    );
}
