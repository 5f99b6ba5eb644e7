//! End-to-end: hooks through the real `bearagent` binary, with Claude Code
//! style scripts. A PreToolUse hook that refuses commands with `curl`
//! refuses one and lets another run, its reason reaching the model; a
//! PostToolUse hook sees the tool's response; a Stop hook that blocks once
//! makes the run take one more turn; a hook that hangs is killed at its
//! timeout; a project hook never runs untrusted, runs after `hooks trust`,
//! and stops running once the file is edited.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Puts `script` in the user's hooks folder (beside the config file,
/// hidden from commands but readable by hooks) and the `tables` into the
/// config file, `{script}` standing for `python3 PATH`.
fn user_hooks(env: &support::Env, scripts: &[(&str, &str)], tables: &str) {
    let dir = env.home.path().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = String::from("version = 1\n");
    let mut tables = tables.to_owned();
    for (name, script) in scripts {
        let path = dir.join(name);
        std::fs::write(&path, script).unwrap();
        tables = tables.replace(
            &format!("{{{name}}}"),
            &format!("python3 {}", path.display()),
        );
    }
    config.push_str(&tables);
    std::fs::write(env.home.path().join("config.toml"), config).unwrap();
}

fn cmd(command: &str) -> Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}})
}

fn payloads<'a>(run: &'a support::RunResult, t: &str) -> Vec<&'a Value> {
    run.of_type(t).into_iter().map(|e| &e["payload"]).collect()
}

const NO_CURL: &str = r#"
import json, sys
data = json.load(sys.stdin)
assert data["hook_event_name"] == "PreToolUse"
if "curl" in data["tool_input"].get("command", ""):
    print("curl is not allowed here: use the project's fetch script", file=sys.stderr)
    sys.exit(2)
"#;

const POST: &str = r#"
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(data["cwd"], "post-saw.txt"), "a") as f:
    f.write(data["tool_name"] + ": " + data["tool_response"]["content"] + "\n")
"#;

const STOP_ONCE: &str = r#"
import json, sys
data = json.load(sys.stdin)
if not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests before you stop"}))
"#;

#[test]
fn user_hooks_refuse_curl_see_responses_and_send_the_model_back_once() {
    let env = support::env();
    env.write("notes.txt", "tool output marker 7f3a\n");
    user_hooks(
        &env,
        &[
            ("no_curl.py", NO_CURL),
            ("post.py", POST),
            ("stop.py", STOP_ONCE),
        ],
        "[[hooks.PreToolUse]]\nmatcher = \"run_command\"\ncommand = \"{no_curl.py}\"\n\
         [[hooks.PostToolUse]]\nmatcher = \"read_file\"\ncommand = \"{post.py}\"\n\
         [[hooks.Stop]]\ncommand = \"{stop.py}\"\n",
    );
    let run = env.run(
        json!([
            cmd("curl -s https://example.com"),
            cmd("echo fetched offline"),
            {"tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.txt"}}},
            {"final_answer": "first answer"},
            {"final_answer": "tests pass"}
        ]),
        &["--approve", "all"],
        "fetch the page",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let failed = payloads(&run, "tool_call_failed");
    assert_eq!(failed.len(), 1, "only the curl was refused");
    assert_eq!(
        failed[0]["result"]["content"],
        "refused by a PreToolUse hook: curl is not allowed here: use the project's fetch script"
    );
    env.keep("hooks", &run.run_id());
    let completed = payloads(&run, "tool_call_completed");
    assert!(completed[0]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("fetched offline"));
    // The PostToolUse hook read the tool's response.
    let saw = env.read("post-saw.txt").unwrap();
    assert!(saw.starts_with("read_file: "), "{saw}");
    assert!(saw.contains("tool output marker 7f3a"), "{saw}");
    // The Stop hook sent the model back once: two answers, one success.
    let hooks = payloads(&run, "hook_ran");
    let stops: Vec<&str> = hooks
        .iter()
        .filter(|h| h["hook"] == "Stop")
        .map(|h| h["decision"].as_str().unwrap())
        .collect();
    assert_eq!(stops, ["block", "proceed"]);
    assert_eq!(payloads(&run, "run_succeeded")[0]["answer"], "tests pass");
    let deny = hooks.iter().find(|h| h["decision"] == "deny").unwrap();
    assert_eq!(deny["exit_code"], 2);
    assert!(deny["call_id"].is_string(), "shown on the call it decided");
    assert!(deny["duration_ms"].is_u64());
}

#[test]
fn a_hook_that_hangs_is_killed_at_its_timeout_and_the_run_goes_on() {
    let env = support::env();
    user_hooks(
        &env,
        &[("hang.py", "import time\ntime.sleep(300)\n")],
        "[[hooks.Stop]]\ncommand = \"{hang.py}\"\ntimeout_secs = 2\n",
    );
    let started = Instant::now();
    let run = env.run(
        json!([{"final_answer": "done"}]),
        &["--approve", "all"],
        "goal",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(started.elapsed() < Duration::from_secs(60));
    let hook = &payloads(&run, "hook_ran")[0];
    assert_eq!(hook["timed_out"], true);
    assert_eq!(hook["decision"], "proceed");
    assert!(hook["warning"].as_str().unwrap().contains("timeout"));
    let duration = hook["duration_ms"].as_u64().unwrap();
    assert!((2000..30_000).contains(&duration), "{duration}");
}

const PROJECT_HOOKS: &str = "[[hooks.SessionStart]]\ncommand = \"echo ran >> hook-marker.txt\"\n";

#[test]
fn a_project_hook_runs_only_after_trust_and_not_once_edited() {
    let env = support::env();
    env.write(".bearagent/hooks.toml", PROJECT_HOOKS);
    let ws = env.ws().to_str().unwrap().to_owned();
    let answer = json!([{"final_answer": "done"}]);

    let untrusted = env.run(answer.clone(), &["--approve", "all"], "goal");
    assert_eq!(untrusted.code, 0, "{}", untrusted.stderr);
    assert!(
        env.read("hook-marker.txt").is_none(),
        "never runs untrusted"
    );
    let told = payloads(&untrusted, "hooks_not_trusted");
    assert_eq!(told.len(), 1, "said once");
    assert_eq!(told[0]["commands"][0], "echo ran >> hook-marker.txt");

    let listed = env.bearagent(&["hooks", "--workspace", &ws]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("NOT trusted"), "{listed}");
    assert!(listed.contains("echo ran >> hook-marker.txt"), "{listed}");

    let trust = env.bearagent(&["hooks", "trust", "--workspace", &ws]);
    assert!(
        trust.status.success(),
        "{}",
        String::from_utf8_lossy(&trust.stderr)
    );
    let trusted = env.run(answer.clone(), &["--approve", "all"], "goal");
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    assert_eq!(env.read("hook-marker.txt").unwrap(), "ran\n");
    assert_eq!(payloads(&trusted, "hook_ran")[0]["source"], "project");

    env.write(
        ".bearagent/hooks.toml",
        &format!("{PROJECT_HOOKS}[[hooks.Stop]]\ncommand = \"echo sneaky >> hook-marker.txt\"\n"),
    );
    let edited = env.run(answer, &["--approve", "all"], "goal");
    assert_eq!(edited.code, 0, "{}", edited.stderr);
    assert_eq!(
        env.read("hook-marker.txt").unwrap(),
        "ran\n",
        "edited: untrusted again"
    );
    assert_eq!(payloads(&edited, "hooks_not_trusted").len(), 1);
    // Trust pinned to what was reviewed: a stale hash is refused.
    let stale = env.bearagent(&[
        "hooks",
        "trust",
        "--workspace",
        &ws,
        "--sha256",
        &"0".repeat(64),
    ]);
    assert!(!stale.status.success());
    assert!(String::from_utf8_lossy(&stale.stderr).contains("changed since it was shown"));
}

#[test]
fn a_workspace_cannot_configure_approvals_or_the_sandbox_through_its_hooks_file() {
    let env = support::env();
    env.write(
        ".bearagent/hooks.toml",
        "approval = \"all\"\nsandbox = \"off\"\n[[hooks.SessionStart]]\ncommand = \"true\"\n",
    );
    let ws = env.ws().to_str().unwrap().to_owned();
    let trust = env.bearagent(&["hooks", "trust", "--workspace", &ws]);
    assert!(!trust.status.success());
    let stderr = String::from_utf8_lossy(&trust.stderr);
    assert!(stderr.contains("cannot be trusted"), "{stderr}");
}

#[test]
fn a_post_tool_use_hook_sees_a_helpers_report() {
    let env = support::env();
    env.write("notes.txt", "tool output marker 7f3a\n");
    user_hooks(
        &env,
        &[("post.py", POST)],
        "[[hooks.PostToolUse]]\nmatcher = \"task\"\ncommand = \"{post.py}\"\n",
    );
    let run = env.run(
        json!([
            {"tool_call": {"tool_name": "task", "call_id": "t1", "arguments": {
                "description": "read the notes", "prompt": "Read notes.txt."}}},
            {"tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.txt"}}},
            {"final_answer": "the helper's marker answer"},
            {"final_answer": "done"}
        ]),
        &["--approve", "all", "--delegate"],
        "delegate the reading",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let saw = env.read("post-saw.txt").unwrap();
    assert!(saw.starts_with("task: helper \"read the notes\""), "{saw}");
    assert!(saw.contains("the helper's marker answer"), "{saw}");
    let post = payloads(&run, "hook_ran");
    assert_eq!(post.len(), 1, "{post:?}");
    assert_eq!(post[0]["call_id"], "t1");
}
