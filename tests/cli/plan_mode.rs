//! End-to-end: plan mode through the real `bearagent` binary. A scripted
//! model that tries `write_file`, `edit_file` and `run_command` while
//! planning is refused each time without being asked, nothing changes on
//! disk, and its answer is the plan; `--continue RUN --approve-plan` then
//! carries the plan out in the normal mode, and it writes.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;

const PLAN: &str = "## Plan\n1. Change `add` in calc.py to return `a + b`.\n2. Run the tests.";

#[test]
fn a_plan_run_changes_nothing_and_its_approved_follow_up_writes() {
    let env = support::env();
    env.write("calc.py", "def add(a, b):\n    return a - b\n");
    let planning = env.run(
        json!([
            {"tool_call": {"tool_name": "read_file", "arguments": {"path": "calc.py"}}},
            {"tool_call": {"tool_name": "write_file", "arguments": {"path": "new.py", "content": "x = 1\n"}}},
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}},
            {"tool_call": {"tool_name": "run_command", "arguments": {"command": "touch made-by-a-command"}}},
            {"final_answer": PLAN}
        ]),
        &["--plan", "--approve", "all"],
        "fix add",
    );
    assert_eq!(planning.code, 0, "{}\n{}", planning.stdout, planning.stderr);
    let created = &planning.of_type("run_created")[0]["payload"];
    assert_eq!(created["plan_mode"], true);
    env.keep("plan-mode", &planning.run_id());
    let refused: Vec<String> = planning
        .of_type("tool_call_failed")
        .iter()
        .map(|e| {
            e["payload"]["result"]["content"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        refused.len(),
        3,
        "write, edit and command refused: {refused:?}"
    );
    for r in &refused {
        assert!(
            r.contains("plan mode: this run only reads and plans"),
            "{r}"
        );
    }
    assert!(
        planning.of_type("approval_requested").is_empty(),
        "refused without asking"
    );
    assert!(
        planning.of_type("tool_call_completed").len() == 1,
        "the read ran"
    );
    assert_eq!(
        env.read("calc.py").unwrap(),
        "def add(a, b):\n    return a - b\n"
    );
    assert!(env.read("new.py").is_none());
    assert!(env.read("made-by-a-command").is_none());
    assert_eq!(
        planning.of_type("run_succeeded")[0]["payload"]["answer"],
        PLAN
    );

    let run = planning.run_id();

    approve_the_plan(&env, &run);
}

/// Approved: a follow-up in the normal mode, with the plan in its context,
/// writes; approving a run that did not plan is a usage error.
fn approve_the_plan(env: &support::Env, run: &str) {
    let script = env.script(json!([
        {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}},
        {"final_answer": "done"}
    ]));
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--approve",
            "all",
            "--continue",
            run,
            "--approve-plan",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let done = support::RunResult::from_output_pub(out);
    assert_eq!(done.code, 0, "{}\n{}", done.stdout, done.stderr);
    let created = &done.of_type("run_created")[0]["payload"];
    assert!(
        created.get("plan_mode").is_none(),
        "the follow-up is not planning"
    );
    assert!(created["goal"]
        .as_str()
        .unwrap()
        .starts_with("The plan is approved."));
    assert_eq!(
        env.read("calc.py").unwrap(),
        "def add(a, b):\n    return a + b\n"
    );

    // --approve-plan of a run that was not a plan run is a usage error.
    let out = env
        .command()
        .args([
            "run",
            "--json",
            "--continue",
            &done.run_id(),
            "--approve-plan",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was not a plan run"));
}

#[test]
fn update_plan_keeps_a_live_todo_list_even_while_planning() {
    let env = support::env();
    env.write("calc.py", "def add(a, b):\n    return a - b\n");
    let plan = |second: &str| {
        json!({"tool_call": {"tool_name": "update_plan", "arguments": {"plan": [
            {"step": "read calc.py", "status": "completed"},
            {"step": "write the plan", "status": second}
        ]}}})
    };
    let r = env.run(
        json!([
            plan("in_progress"),
            {"tool_call": {"tool_name": "update_plan", "arguments": {"plan": [
                {"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}}},
            plan("completed"),
            {"final_answer": PLAN}
        ]),
        &["--plan"],
        "plan the fix",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let updates = r.of_type("todo_updated");
    assert_eq!(
        updates.len(),
        2,
        "the invalid list is refused, not recorded"
    );
    assert_eq!(updates[1]["payload"]["items"][1]["status"], "completed");
    let failed = r.of_type("tool_call_failed");
    assert!(failed[0]["payload"]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("at most one step may be in_progress"));
    let out = env.bearagent(&["inspect", &r.run_id(), "--json"]);
    let inspected: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inspected["todo"][0]["step"], "read calc.py", "{inspected}");
    // The human timeline prints the list.
    let out = env.bearagent(&["events", &r.run_id()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("plan: 2 of 2 done\n[x] read calc.py\n[x] write the plan"),
        "{text}"
    );
}
