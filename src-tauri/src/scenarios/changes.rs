//! A finished run with every kind of change for the Changes view: files
//! the file tools modified and created, one a command deleted, a binary
//! file and a large log a command wrote, and one the user edited since
//! (a conflict); then the user reverts one hunk of a file the run changed
//! in two places.

use super::provider::provider;
use super::session::Session;
use bearagent_kernel::{ApprovalMode, RunId};
use bearagent_runtime::RunProfile;
use serde_json::{json, Value};

const GREETER_BEFORE: &str = "def greet(name):\n    \"\"\"Say hello.\"\"\"\n    return f\"Hello, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n";
const GREETER_AFTER: &str = "GREETINGS = {\"en\": \"Hello\", \"fr\": \"Bonjour\", \"es\": \"Hola\"}\n\n\ndef greet(name, lang=\"en\"):\n    \"\"\"Say hello in the given language (English by default).\"\"\"\n    return f\"{GREETINGS.get(lang, GREETINGS['en'])}, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n";
const LIB_BEFORE: &str = "/// The greeting for a language.\npub fn greeting(lang: &str) -> &'static str {\n    match lang {\n        \"fr\" => \"Bonjour\",\n        _ => \"Hello\",\n    }\n}\n";
const LIB_AFTER: &str = "/// The greeting for a language.\npub fn greeting(lang: &str, formal: bool) -> &'static str {\n    match lang {\n        \"fr\" => \"Salut\",\n        _ => \"Hi\",\n    }\n}\n";
pub const PLAN: &str =
    "# Plan\n\n1. Add a greeting table.\n2. Default to English.\n3. Test each language.\n";
const SETTINGS_BEFORE: &str = "lang = \"en\"\ntimeout = 30\n";
const SETTINGS_AFTER: &str = "lang = \"en\"\nlanguages = [\"en\", \"fr\", \"es\"]\ntimeout = 30\n";
/// What the user saved over the run's version afterwards.
pub const SETTINGS_EDITED: &str =
    "lang = \"fr\"\nlanguages = [\"en\", \"fr\", \"es\"]\ntimeout = 60\n";
/// A PNG signature and zeros: 18 KB of binary.
/// It also installs a dependency into the ignored `node_modules/`: not
/// tracked, and Changes says so.
const FLAGS: &str = "printf '\\211PNG\\r\\n\\032\\n' > assets/flags.png && head -c 18424 /dev/zero >> assets/flags.png && mkdir -p node_modules/flag-icons && printf 'module.exports = {};\\n' > node_modules/flag-icons/index.js";
/// Every 20th line of the log marked as slow: more than 1 MiB, so its
/// diff is stats only until asked for in full.
const SLOW: &str = "sed -i '0~20s/INFO request served/WARN request slow/' logs/requests.log";

/// A guide the run edits at its top and its bottom: two hunks.
fn guide(top: &str, bottom: &str) -> String {
    let middle: String = (1..=12)
        .map(|i| format!("Step {i}: greet, then check the greeting.\n"))
        .collect();
    format!("# {top}\n\n{middle}\n{bottom}\n")
}

fn requests_log() -> String {
    (1..=13_500)
        .map(|i| format!("{i:06} INFO request served in {:3} ms from cache shard {:2} for tenant acme-europe-west\n", (i * 7) % 900, i % 16))
        .collect()
}

fn script() -> Vec<Value> {
    let call = |id: &str, tool: &str, args: Value| json!({"tool_call": {"call_id": id, "tool_name": tool, "arguments": args}});
    let write = |id: &str, path: &str, content: &str| {
        call(id, "write_file", json!({"path": path, "content": content}))
    };
    vec![
        write("call_1", "src/greeter.py", GREETER_AFTER),
        write("call_2", "src/lib.rs", LIB_AFTER),
        write("call_3", "docs/plan.md", PLAN),
        write("call_4", "config/settings.toml", SETTINGS_AFTER),
        write(
            "call_8",
            "docs/guide.md",
            &guide(
                "Greeter guide (en, fr, es)",
                "Languages: English, French, Spanish.",
            ),
        ),
        call(
            "call_5",
            "run_command",
            json!({"command": "rm docs/old-notes.md"}),
        ),
        call(
            "call_6",
            "run_command",
            json!({"command": format!("mkdir -p assets && {FLAGS}")}),
        ),
        call("call_7", "run_command", json!({"command": SLOW})),
        json!({"final_answer": "Added French and Spanish greetings: a greeting table in src/greeter.py and src/lib.rs, the languages in config/settings.toml, and the plan in docs/plan.md."}),
    ]
}

/// A session where the run has finished and the user then edited
/// `config/settings.toml` (a conflict).
pub async fn finished() -> (Session, RunId) {
    let s = Session::new(None);
    s.write(".gitignore", "node_modules/\n");
    s.write("src/greeter.py", GREETER_BEFORE);
    s.write("src/lib.rs", LIB_BEFORE);
    s.write(
        "docs/old-notes.md",
        "# Old notes\n\nEnglish only for now.\n",
    );
    s.write("config/settings.toml", SETTINGS_BEFORE);
    s.write("logs/requests.log", requests_log());
    s.write(
        "docs/guide.md",
        guide("Greeter guide", "Languages: English."),
    );
    let profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    let run = s.start(
        "Add French and Spanish greetings to the greeter",
        profile,
        provider(&script(), None),
    );
    s.finish(run).await;
    s.write("config/settings.toml", SETTINGS_EDITED);
    (s, run)
}

async fn take() -> Value {
    let (s, run) = finished().await;
    let mut take = json!({"name": "every kind of change, one edited since", "decisions": [], "run": s.recorded(run).await});
    s.app
        .revert_hunks(run, "docs/guide.md", &[1], false)
        .unwrap();
    let updates = s.updates(run).await;
    let changes = s.changes(run);
    take["hunks_reverted"] =
        json!([{"path": "docs/guide.md", "hunks": [1], "updates": updates, "changes": changes}]);
    let mut take = s.placeholders(take, &[run]);
    super::review::record(&mut take).await;
    take
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_changes_scenario_is_what_the_runtime_records_now() {
    super::check("changes", vec![take().await]);
}
