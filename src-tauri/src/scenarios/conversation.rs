//! The run the conversation view is read with: the test fails, the model
//! fixes one line of `calc.py` with `edit_file` (a write that asks), the
//! test passes. Commands ask too (no rule allows them). Two takes: all
//! approved, and the edit denied (the model then stops and says so).

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::ApprovalMode;
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

pub const GOAL: &str = "Fix the failing test in calc.py";
const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const TEST: &str = "from calc import add, mul\n\nchecks = [(\"add(2, 3)\", add(2, 3), 5), (\"mul(2, 3)\", mul(2, 3), 6)]\nfailed = [(name, got, want) for name, got, want in checks if got != want]\nfor name, got, want in failed:\n    print(f\"FAIL: {name} returned {got}, expected {want}\")\nprint(f\"{len(checks) - len(failed)} passed, {len(failed)} failed\")\nraise SystemExit(1 if failed else 0)\n";
pub const TEST_COMMAND: &str = "python3 -B test_calc.py";

fn call(id: &str, tool: &str, args: Value, text: &str) -> Value {
    json!({"text": text, "tool_call": {"call_id": id, "tool_name": tool, "arguments": args}, "usage": {"input": 1_800, "output": 40}})
}

fn script(edit_denied: bool) -> Vec<Value> {
    let test =
        |id: &str, text: &str| call(id, "run_command", json!({"command": TEST_COMMAND}), text);
    let mut steps = vec![
        test("call_1", "Running the tests first. "),
        call(
            "call_2",
            "edit_file",
            json!({"path": "calc.py", "old_string": "    return a - b", "new_string": "    return a + b"}),
            "add() subtracts. Fixing that one line. ",
        ),
    ];
    if edit_denied {
        steps.push(json!({"final_answer": "You denied the edit, so calc.py is unchanged and add(2, 3) still returns -1.", "usage": {"input": 2_400, "output": 30}}));
    } else {
        steps.push(test("call_3", "Running them again. "));
        steps.push(json!({"final_answer": "Fixed: add() subtracted instead of adding. Both checks pass now.", "usage": {"input": 2_600, "output": 24}}));
    }
    steps
}

async fn take(decisions: Vec<Value>, name: &str, edit_denied: bool) -> Value {
    let s = Session::new(None);
    s.write("calc.py", CALC);
    s.write("test_calc.py", TEST);
    let profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        ..RunProfile::default()
    };
    let run = s.start(GOAL, profile, provider(&script(edit_denied), None));
    s.take(run, name, decisions).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conversation_scenario_is_what_the_runtime_records_now() {
    let once = json!({"approve": true, "scope": "once", "reason": null, "allowPrefix": null});
    let deny = json!({"approve": false, "scope": "once", "reason": "keep subtracting for now", "allowPrefix": null});
    let takes = vec![
        take(
            vec![once.clone(), once.clone(), once.clone()],
            "every call approved",
            false,
        )
        .await,
        take(vec![once, deny], "the edit denied", true).await,
    ];
    super::check("conversation", takes);
}
