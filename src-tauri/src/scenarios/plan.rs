//! Plan first: a plan-mode run reads the parser and answers with a
//! Markdown plan; "Approve plan" starts its follow-up (in the normal mode),
//! which keeps a todo list with `update_plan` around a command that asks
//! (the user allows its prefix, remembered for the workspace) and ends
//! with the list done.

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::ApprovalMode;
use bearagent_runtime::{RunProfile, StartRun, ThreadStart};
use serde_json::{json, Value};
use std::sync::Arc;

pub const GOAL: &str = "Make the parser accept empty input";
/// What the UI sends when the user approves a plan (`lib/runs/plan.ts`).
const APPROVAL: &str = "The plan is approved. Carry it out now, step by step.";
const COMMAND: &str = "make test";
const PARSER: &str = "pub fn parse(input: &str) -> Result<Document, Error> {\n    let first = input.lines().next().ok_or(Error::Empty)?;\n    Document::from_header(first)\n}\n";
const PLAN: &str = "## Plan\n\n1. Read `src/parser.rs` and its tests to find where empty input fails.\n2. Add a test for empty input.\n3. Return an empty document for empty input.\n4. Run `make test`.";
const STEPS: [&str; 3] = [
    "Add a test for empty input",
    "Return an empty document for empty input",
    "Run make test",
];

fn call(id: &str, tool: &str, args: Value, text: &str) -> Value {
    json!({"text": text, "tool_call": {"call_id": id, "tool_name": tool, "arguments": args}, "usage": {"input": 1_200, "output": 160}})
}

/// The todo list with each step's status.
fn todo(id: &str, statuses: [&str; 3], text: &str) -> Value {
    let plan: Vec<Value> = STEPS
        .iter()
        .zip(statuses)
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    call(id, "update_plan", json!({"plan": plan}), text)
}

fn planning() -> Vec<Value> {
    vec![
        call(
            "call_1",
            "read_file",
            json!({"path": "src/parser.rs"}),
            "Reading the parser first. ",
        ),
        json!({"final_answer": PLAN, "usage": {"input": 1_600, "output": 120}}),
    ]
}

fn carrying_out() -> Vec<Value> {
    vec![
        todo(
            "call_1",
            ["completed", "in_progress", "pending"],
            "The test is in; now the fix. ",
        ),
        call(
            "call_2",
            "run_command",
            json!({"command": COMMAND}),
            "Running the tests. ",
        ),
        todo(
            "call_3",
            ["completed", "completed", "completed"],
            "All steps done. ",
        ),
        json!({"final_answer": "Done: empty input now gives an empty document, and `make test` passes.", "usage": {"input": 1_900, "output": 40}}),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_scenario_is_what_the_runtime_records_now() {
    let s = Session::new(None);
    s.write("src/parser.rs", PARSER);
    s.write(
        "Makefile",
        "test:\n\t@echo 'test result: ok. 12 passed; 0 failed'\n",
    );
    let profile = RunProfile {
        plan_mode: true,
        ..RunProfile::default()
    };
    let run = s.start(GOAL, profile, provider(&planning(), None));
    s.finish(run).await;
    let start = StartRun {
        workspace: String::new(),
        goal: APPROVAL.into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AskWrites,
            ..RunProfile::default()
        },
        provider: Arc::new(provider(&carrying_out(), None)),
        images: Vec::new(),
    };
    let thread = ThreadStart {
        run_id: run,
        at: None,
    };
    let follow = s.app.start_follow_up(start, thread).unwrap();
    let allow = json!({"approve": true, "scope": "once", "reason": null, "allowPrefix": COMMAND});
    let decided = s.decide(follow, allow).await;
    s.finish(follow).await;
    let take = json!({
        "name": "a plan, approved; its follow-up allows the test command's prefix",
        "decisions": [decided],
        "run": s.recorded(run).await,
        "follow_up": s.recorded(follow).await,
    });
    super::check("plan", vec![s.placeholders(take, &[run, follow])]);
}
