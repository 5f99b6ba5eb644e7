//! The CLI's human renderer, pinned as a snapshot: a scripted run with a
//! read, a command, a write asked about (denied without a terminal) and an
//! answer, as `bearagent run` prints it (ids, times, paths filtered).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;

#[test]
fn the_human_timeline_reads_as_expected() {
    let env = support::env();
    env.write("notes.md", "hello\n");
    let script = env.script(json!([
        {"text": "Reading first.", "tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.md"}},
         "usage": {"input": 100, "output": 10}},
        {"tool_call": {"tool_name": "run_command", "arguments": {"command": "echo checked"}}},
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "out.md", "content": "x"}}},
        {"final_answer": "The notes say hello.", "usage": {"input": 200, "output": 5}}
    ]));
    std::fs::write(
        env.home.path().join("config.toml"),
        "version = 1\n[profiles.default]\ncommand_rules = [{ prefix = \"echo\", decision = \"allow\" }]\n",
    )
    .unwrap();
    let out = env
        .command()
        .args(["run", "--script"])
        .arg(&script)
        .arg("--workspace")
        .arg(env.ws())
        .arg("what do the notes say?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let ws = env.ws().display().to_string();
    insta::with_settings!({filters => vec![
        (ws.as_str(), "[workspace]"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "[id]"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "[time]"),
        (r"\d+ ms", "[n] ms"),
        (r"after \d+\.\d s", "after [n] s"),
        (r"\d+ bytes of context", "[n] bytes of context"),
        (r"~\d+ of (\d+) tokens", "~[n] of $1 tokens"),
        (r"\d+ in / \d+ out tokens", "[n] in / [n] out tokens"),
    ]}, {
        insta::assert_snapshot!(text);
    });
}
