//! A run with hooks: the workspace's project hooks nobody trusted are
//! reported first (none of them runs); the user's SessionStart hook passes
//! its output to the model, their UserPromptSubmit hook is stopped at its
//! timeout (a warning; the run goes on), their PreToolUse hook refuses the
//! model's `curl` command, and their Stop hook sends the model back once
//! before the run ends. The user's hooks are Python scripts in their
//! hooks folder, beside their config file, as the runtime's own tests
//! write them.

use super::provider::provider;
use super::session::Session;
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

pub const GOAL: &str = "Fetch https://example.com with curl and summarise it";
const CURL: &str = "curl -sL https://example.com";
const DENY: &str = "curl is not allowed here: use the fetch tool";
const STOP: &str = "say in one line which tool would work instead";

/// The user's hook scripts: file name and Python source.
fn scripts() -> [(&'static str, String); 3] {
    let no_curl = format!("import json, sys\ndata = json.load(sys.stdin)\nif \"curl\" in data[\"tool_input\"].get(\"command\", \"\"):\n    print({DENY:?}, file=sys.stderr)\n    sys.exit(2)\n");
    let stop = format!("import json, sys\ndata = json.load(sys.stdin)\nif not data[\"stop_hook_active\"]:\n    print({STOP:?}, file=sys.stderr)\n    sys.exit(2)\n");
    let slow = "import time\ntime.sleep(5)\n".to_owned();
    [
        ("no-curl.py", no_curl),
        ("check-done.py", stop),
        ("audit-prompt.py", slow),
    ]
}

/// The user's config naming the scripts in `dir`.
fn config(dir: &str) -> String {
    let entry = |event: &str, extra: &str, command: String| {
        format!("[[hooks.{event}]]\n{extra}command = {command:?}\n")
    };
    [
        "version = 1\n".to_owned(),
        entry("SessionStart", "", "cat NOTES.txt".into()),
        entry(
            "UserPromptSubmit",
            "timeout_secs = 1\n",
            format!("python3 {dir}/audit-prompt.py"),
        ),
        entry(
            "PreToolUse",
            "matcher = \"run_command\"\n",
            format!("python3 {dir}/no-curl.py"),
        ),
        entry("Stop", "", format!("python3 {dir}/check-done.py")),
    ]
    .join("\n")
}

/// The workspace's own hooks file, which nobody trusted.
const PROJECT_HOOKS: &str = "[[hooks.PreToolUse]]\nmatcher = \"run_command\"\ncommand = \"./scripts/guard-commands.sh --strict\"\ntimeout_secs = 60\n\n[[hooks.Stop]]\ncommand = \"cargo fmt --check\"\ntimeout_secs = 30\n";

fn script() -> Vec<Value> {
    let answer =
        |text: &str| json!({"final_answer": text, "usage": {"input": 1_200, "output": 40}});
    vec![
        json!({"text": "Let me fetch the page. ", "tool_call": {"call_id": "call-hooks-1", "tool_name": "run_command", "arguments": {"command": CURL}}, "usage": {"input": 1_200, "output": 160}}),
        answer("I could not fetch the page."),
        answer("curl is refused by a hook here; the fetch tool would work instead."),
    ]
}

fn user_hooks(s: &Session) {
    let dir = s.app.config_path().parent().unwrap().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, source) in scripts() {
        std::fs::write(dir.join(name), source).unwrap();
    }
    std::fs::write(s.app.config_path(), config(&dir.display().to_string())).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_scenario_is_what_the_runtime_records_now() {
    let s = Session::new(None);
    user_hooks(&s);
    s.write("NOTES.txt", " M calc.py\n");
    s.write(".bearagent/hooks.toml", PROJECT_HOOKS);
    let run = s.start(GOAL, RunProfile::default(), provider(&script(), None));
    let take = s
        .take(
            run,
            "untrusted project hooks; the user's deny curl, then send the model back once",
            vec![],
        )
        .await;
    super::check("hooks", vec![take]);
}
