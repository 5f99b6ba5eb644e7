//! The CLI's human renderer, pinned as snapshots: a scripted run with a
//! read, a command, a write asked about (denied without a terminal) and an
//! answer, as `bearagent run` prints it; and an edit approved at a real
//! terminal (a pty from util-linux `script`), whose prompt shows the diff
//! (ids, times, paths filtered).
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
        (r"\+\d+\.\ds ", "+[t]s "),
        (r"\d+ ms", "[n] ms"),
        (r"after \d+\.\d s", "after [n] s"),
        (r"\d+ bytes of context", "[n] bytes of context"),
        (r"~\d+ of (\d+) tokens", "~[n] of $1 tokens"),
        (r"\d+ in / \d+ out tokens", "[n] in / [n] out tokens"),
    ]}, {
        insta::assert_snapshot!(text);
    });
}

/// `bearagent ARGS` on a pseudo-terminal, answering `answer` once the
/// approval prompt shows; all it printed (stdout and stderr), `\r` removed.
fn on_a_terminal(env: &support::Env, args: &[String], answer: &str) -> String {
    let mut line = format!(
        "exec env BEARAGENT_HOME='{}' NO_COLOR=1 '{}'",
        env.home.path().display(),
        env!("CARGO_BIN_EXE_bearagent")
    );
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("util-linux script");
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut answered = false;
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(bytes) => seen.extend(bytes),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if !answered && String::from_utf8_lossy(&seen).contains("remember it for this workspace): ")
        {
            let stdin = child.stdin.as_mut().unwrap();
            stdin.write_all(answer.as_bytes()).unwrap();
            stdin.flush().unwrap();
            answered = true;
        }
    }
    let status = child.wait().unwrap();
    assert!(answered, "never asked: {}", String::from_utf8_lossy(&seen));
    assert!(status.success(), "{}", String::from_utf8_lossy(&seen));
    String::from_utf8_lossy(&seen).replace('\r', "")
}

#[test]
fn an_edit_asked_at_a_terminal_shows_its_diff_and_the_timeline_groups_the_call() {
    let env = support::env();
    env.write("calc.py", "def add(a, b):\n    return a - b\n");
    let script = env.script(json!([
        {"text": "add() subtracts.", "tool_call": {"tool_name": "edit_file",
         "arguments": {"path": "calc.py", "old_string": "    return a - b", "new_string": "    return a + b"}}},
        {"final_answer": "Fixed."}
    ]));
    let args: Vec<String> = vec![
        "run".into(),
        "--script".into(),
        script.display().to_string(),
        "--workspace".into(),
        env.ws().display().to_string(),
        "fix add".into(),
    ];
    let text = on_a_terminal(&env, &args, "y\n");
    assert_eq!(
        env.read("calc.py").as_deref(),
        Some("def add(a, b):\n    return a + b\n")
    );
    let ws = env.ws().display().to_string();
    insta::with_settings!({filters => vec![
        (ws.as_str(), "[workspace]"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "[id]"),
        (r"\+\d+\.\ds ", "+[t]s "),
        (r"\d+ bytes of context", "[n] bytes of context"),
        (r"~\d+ of (\d+) tokens", "~[n] of $1 tokens"),
        (r"\d+ in / \d+ out tokens", "[n] in / [n] out tokens"),
    ]}, {
        insta::assert_snapshot!(text);
    });
}
