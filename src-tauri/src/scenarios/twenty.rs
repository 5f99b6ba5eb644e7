//! A 20-step run of typical tools (reads, a listing, searches, edits and
//! commands), everything allowed: what the conversation view's density is
//! measured on against the event log.

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::ApprovalMode;
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

pub const GOAL: &str = "Rename greet() to welcome() across the project";
const MODULES: usize = 6;

fn module(i: usize) -> String {
    format!("from greeter import greet\n\n\ndef hello_{i}(name):\n    return greet(name) + \" ({i})\"\n")
}

fn step(n: usize, tool: &str, args: Value, text: &str) -> Value {
    json!({"text": text, "tool_call": {"call_id": format!("call_{n}"), "tool_name": tool, "arguments": args}, "usage": {"input": 1_500 + 200 * n as u64, "output": 35}})
}

fn script() -> Vec<Value> {
    let mut steps = vec![
        step(
            1,
            "list_dir",
            json!({"path": "."}),
            "Looking at the project first. ",
        ),
        step(
            2,
            "search_text",
            json!({"pattern": "greet(", "literal": true}),
            "Finding every use of greet(). ",
        ),
        step(3, "read_file", json!({"path": "greeter.py"}), ""),
        step(
            4,
            "edit_file",
            json!({"path": "greeter.py", "old_string": "def greet(name):", "new_string": "def welcome(name):"}),
            "Renaming the definition. ",
        ),
    ];
    for i in 1..=MODULES {
        let n = 3 + 2 * i;
        let path = format!("app/m{i}.py");
        steps.push(step(n, "read_file", json!({"path": path}), ""));
        let edit = json!({"path": path, "diff": format!("@@ -1,5 +1,5 @@\n-from greeter import greet\n+from greeter import welcome\n \n \n def hello_{i}(name):\n-    return greet(name) + \" ({i})\"\n+    return welcome(name) + \" ({i})\"\n")});
        steps.push(step(n + 1, "edit_file", edit, ""));
    }
    steps.push(step(
        17,
        "search_text",
        json!({"pattern": "greet(", "literal": true}),
        "Checking nothing is left. ",
    ));
    steps.push(step(
        18,
        "run_command",
        json!({"command": "python3 -B -c 'import app.m1, app.m6; print(app.m6.hello_6(\"Ada\"))'"}),
        "Importing the modules to check they load. ",
    ));
    steps.push(step(
        19,
        "run_command",
        json!({"command": "grep -rn welcome --include=*.py . | wc -l"}),
        "",
    ));
    steps.push(step(20, "list_dir", json!({"path": "app"}), ""));
    steps.push(json!({"final_answer": "Renamed greet() to welcome() in greeter.py and the six modules of app/; they import and run.", "usage": {"input": 6_000, "output": 30}}));
    steps
}

async fn take() -> Value {
    let s = Session::new(None);
    s.write(
        "greeter.py",
        "def greet(name):\n    return f\"Hello, {name}!\"\n",
    );
    s.write("app/__init__.py", "");
    for i in 1..=MODULES {
        s.write(&format!("app/m{i}.py"), module(i));
    }
    let profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    let run = s.start(GOAL, profile, provider(&script(), None));
    s.take(run, "twenty steps, all allowed", vec![]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_twenty_steps_scenario_is_what_the_runtime_records_now() {
    super::check("twenty", vec![take().await]);
}
