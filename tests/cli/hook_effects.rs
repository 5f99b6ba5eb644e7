//! End-to-end: what hooks write is recorded. A PostToolUse formatter hook
//! rewrites the file the model edited: its change is in Changes "by hook",
//! the model's next edit of that file works (the hook's version is the
//! one the run has seen), and a revert of the run restores the workspace
//! byte for byte. In plan mode a hook cannot write the workspace at all.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};

/// Puts `script` in the user's hooks folder and `tables` into the config
/// file, `{script}` standing for `python3 PATH`.
fn user_hooks(env: &support::Env, name: &str, script: &str, tables: &str) -> String {
    let dir = env.home.path().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    let command = format!("python3 {}", path.display());
    let tables = tables.replace(&format!("{{{name}}}"), &command);
    std::fs::write(
        env.home.path().join("config.toml"),
        format!("version = 1\n{tables}"),
    )
    .unwrap();
    command
}

/// A formatter: upper-cases the file the tool wrote.
const UPPER: &str = r#"
import json, os, sys
data = json.load(sys.stdin)
path = os.path.join(data["cwd"], data["tool_input"]["path"])
with open(path) as f:
    text = f.read()
with open(path, "w") as f:
    f.write(text.upper())
"#;

/// Tries to write the workspace, and says whether it could.
const WRITER: &str = r#"
import json, os, sys
data = json.load(sys.stdin)
try:
    with open(os.path.join(data["cwd"], "hook-wrote.txt"), "w") as f:
        f.write("hook\n")
    print("wrote")
except OSError as e:
    print("refused: " + str(e))
"#;

fn edit(old: &str, new: &str) -> Value {
    json!({"tool_call": {"tool_name": "edit_file",
        "arguments": {"path": "notes.txt", "old_string": old, "new_string": new}}})
}

#[test]
fn a_formatter_hooks_rewrite_is_recorded_seen_and_reverted() {
    let env = support::env();
    env.write("notes.txt", "alpha\nbeta\n");
    env.write("other.txt", "untouched\n");
    let hook = user_hooks(
        &env,
        "upper.py",
        UPPER,
        "[[hooks.PostToolUse]]\nmatcher = \"edit_file|write_file\"\ncommand = \"{upper.py}\"\n",
    );
    let run = env.run(
        json!([
            edit("beta", "gamma"),
            // The hook upper-cased the file: the model edits its version.
            edit("GAMMA", "delta"),
            {"final_answer": "done"}
        ]),
        &["--approve", "all"],
        "edit the notes",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let failed = run.of_type("tool_call_failed");
    assert!(failed.is_empty(), "the second edit works: {failed:?}");
    assert_eq!(env.read("notes.txt").unwrap(), "ALPHA\nDELTA\n");
    // Each hook run's change is recorded, by the hook, on the call.
    let by_hook: Vec<&Value> = run
        .of_type("artifact_recorded")
        .into_iter()
        .map(|e| &e["payload"])
        .filter(|p| p["by_hook"] == hook.as_str())
        .collect();
    assert_eq!(by_hook.len(), 2, "{:?}", run.of_type("artifact_recorded"));
    assert!(by_hook.iter().all(|p| p["path"] == "notes.txt"));
    let run_id = run.run_id();
    let listed = env.bearagent(&["changes", &run_id, "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let artifacts = listed["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{listed}");
    assert_eq!(artifacts[0]["path"], "notes.txt");
    assert_eq!(artifacts[0]["by_hooks"], json!([hook]));
    let text = env.bearagent(&["changes", &run_id]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&format!("by hook `{hook}`")), "{text}");
    let reverted = env.bearagent(&["revert", &run_id]);
    assert!(
        reverted.status.success(),
        "{}",
        String::from_utf8_lossy(&reverted.stderr)
    );
    assert_eq!(
        std::fs::read(env.ws().join("notes.txt")).unwrap(),
        b"alpha\nbeta\n"
    );
    assert_eq!(env.read("other.txt").unwrap(), "untouched\n");
}

#[test]
fn a_hook_in_a_plan_run_cannot_write_the_workspace() {
    let env = support::env();
    env.write("notes.txt", "alpha\n");
    user_hooks(
        &env,
        "writer.py",
        WRITER,
        "[[hooks.PostToolUse]]\ncommand = \"{writer.py}\"\n[[hooks.SessionStart]]\ncommand = \"{writer.py}\"\n",
    );
    let run = env.run(
        json!([
            {"tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.txt"}}},
            {"final_answer": "the plan"}
        ]),
        &["--plan", "--approve", "all"],
        "plan the notes",
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let hooks: Vec<&Value> = run
        .of_type("hook_ran")
        .into_iter()
        .map(|e| &e["payload"])
        .collect();
    assert_eq!(hooks.len(), 2, "{hooks:?}");
    assert!(
        hooks
            .iter()
            .all(|h| h["stdout"].as_str().unwrap().starts_with("refused: ")),
        "{hooks:?}"
    );
    assert!(env.read("hook-wrote.txt").is_none());
    assert_eq!(env.read("notes.txt").unwrap(), "alpha\n");
    assert!(run.of_type("artifact_recorded").is_empty());
}
