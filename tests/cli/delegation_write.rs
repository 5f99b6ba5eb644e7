//! Helpers that write (issue 54, item 6) through the real `bearagent`
//! binary: a `task` call with `write: true` starts a child in its own git
//! worktree of the workspace; nothing it writes reaches the workspace
//! until the user applies it; a read-only child cannot write at all; a
//! workspace that is no repository refuses a writing helper, saying why.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::path::PathBuf;
use support::git;

/// A repository with notes.md committed, then changed and not committed.
fn repo(env: &support::Env) -> PathBuf {
    let repo = env.ws().canonicalize().unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("notes.md"), "add subtracts\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "start"]);
    std::fs::write(repo.join("notes.md"), "add subtracts\nunsaved thought\n").unwrap();
    repo
}

fn task(write: bool) -> Value {
    json!({"tool_call": {"tool_name": "task", "call_id": "t1", "arguments": {
        "description": "write the fix note", "prompt": "Write fix.md.", "write": write}}})
}

/// The child's steps: read the notes (as the workspace is now), write fix.md.
fn child_writes() -> Vec<Value> {
    vec![
        support::read("notes.md"),
        support::write("fix.md", "add must add\n"),
        support::answer("wrote fix.md"),
    ]
}

fn child_of(env: &support::Env, parent: &str) -> Value {
    let runs = env.runs();
    runs.into_iter()
        .find(|r| r["parent_run_id"] == parent)
        .unwrap_or_else(|| panic!("no child of {parent}"))
}

fn task_result(result: &support::RunResult) -> (String, String) {
    for t in ["tool_call_completed", "tool_call_failed"] {
        if let Some(e) = result
            .of_type(t)
            .into_iter()
            .find(|e| e["payload"]["result"]["call_id"] == "t1")
        {
            let content = e["payload"]["result"]["content"]
                .as_str()
                .unwrap()
                .to_owned();
            return (t.to_owned(), content);
        }
    }
    panic!("no result for the task call: {}", result.stdout);
}

#[test]
fn a_writing_child_works_in_its_own_worktree_and_only_an_apply_lands_its_file() {
    let env = support::env();
    let repo = repo(&env);
    let mut steps = vec![task(true)];
    steps.extend(child_writes());
    steps.push(support::answer("the helper wrote fix.md in its worktree"));
    let result = env.run(
        json!(steps),
        &["--delegate", "--approve", "all"],
        "fix the notes",
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let (kind, content) = task_result(&result);
    assert_eq!(kind, "tool_call_completed", "{content}");
    assert!(content.contains("files changed: fix.md"), "{content}");
    assert!(content.contains("own worktree"), "{content}");
    assert!(
        !repo.join("fix.md").exists(),
        "the workspace is untouched before an apply"
    );

    let parent = result.run_id();
    let child = child_of(&env, &parent);
    let child_id = child["run_id"].as_str().unwrap();
    let events = env.events_of(child_id);
    let created = &events[0]["payload"];
    let folder = PathBuf::from(created["worktree"]["path"].as_str().unwrap());
    assert_eq!(created["workspace_path"], created["worktree"]["path"]);
    assert_eq!(
        std::fs::read_to_string(folder.join("fix.md")).unwrap(),
        "add must add\n"
    );
    // It read the notes as the workspace holds them now, unsaved line too.
    let read = events
        .iter()
        .find(|e| e["payload"]["type"] == "tool_call_completed")
        .unwrap();
    assert!(read["payload"]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("unsaved thought"));

    let out = env.bearagent(&["apply", child_id, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("fix.md")).unwrap(),
        "add must add\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.md")).unwrap(),
        "add subtracts\nunsaved thought\n",
        "the user's own change is kept"
    );
}

#[test]
fn a_read_only_child_has_no_tool_to_write_with() {
    let env = support::env();
    let repo = repo(&env);
    let mut steps = vec![task(false)];
    steps.extend(child_writes());
    steps.push(support::answer("the helper could only read"));
    let result = env.run(
        json!(steps),
        &["--delegate", "--approve", "all"],
        "fix the notes",
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert!(!repo.join("fix.md").exists());
    let child = child_of(&env, &result.run_id());
    let events = env.events_of(child["run_id"].as_str().unwrap());
    assert!(events[0]["payload"]
        .get("worktree")
        .is_none_or(Value::is_null));
    assert!(
        !events
            .iter()
            .any(|e| e["payload"]["type"] == "artifact_recorded"),
        "a read-only child changed a file"
    );
}

#[test]
fn a_writing_helper_outside_a_repository_is_refused_saying_why() {
    let env = support::env();
    env.write("notes.md", "no repository here\n");
    let steps = json!([task(true), support::answer("no helper then")]);
    let result = env.run(steps, &["--delegate", "--approve", "all"], "fix the notes");
    assert_eq!(result.code, 0, "{}", result.stderr);
    let (kind, content) = task_result(&result);
    assert_eq!(kind, "tool_call_failed", "{content}");
    assert!(content.contains("git repository"), "{content}");
}
