//! The UI's development mock (`ui/src/dev/mock/`) decides nothing about a
//! run: it plays back what the real application recorded here. Each
//! scenario drives real runs through the application API — a scripted
//! model, the real tools, sandbox, MCP server, compaction and review — and
//! writes `ui/src/dev/mock/fixtures/scenarios/<name>.json` in the exact
//! form the shell sends over IPC: every live update in order, and what the
//! window can ask about the run afterwards (stored command output, the
//! context of each model call, instructions and summaries, changed files
//! and their diffs). A scenario holds several takes, one per sequence of
//! the user's decisions; the mock plays the take whose decisions match
//! what the user did, and refuses (visibly) when none does.
//!
//! Folders, the workspace id and run ids are replaced with placeholders,
//! and durations fixed (`normalise`), so a file is the same on every
//! machine. The test fails when a file is not what the runtime records
//! now; after an intended change to the loop, the tools or the events:
//!     BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-desktop scenarios

mod changes;
mod commands;
mod conversation;
mod demo;
mod hooks;
mod long;
mod mcp;
mod normalise;
mod plan;
mod provider;
mod review;
mod sandbox;
mod session;
mod twenty;
mod worktrees;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub const WORKSPACE_PATH: &str = "/tmp/bearagent-scenario";
pub const WORKSPACE_ID: &str = "0190a000-0000-7000-8000-0000000000f1";
pub const DATA_FOLDER: &str = "/home/dev/.local/share/bearagent";

/// The placeholder of the `i`-th run a take records (0: the run itself).
pub fn run_placeholder(i: usize) -> String {
    format!("0190a000-0000-7000-8000-{:012}", 201 + i)
}

/// `value` with every object's keys in order, whatever serde_json's map
/// keeps (a dependency may turn on its insertion order).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Compares `takes` with the committed file `name`.json (or writes it).
fn check(name: &str, takes: Vec<Value>) {
    check_with(name, takes, json!({}), json!({}));
}

/// Like [`check`], with more `placeholders` and more top-level `fields`.
fn check_with(name: &str, takes: Vec<Value>, placeholders: Value, fields: Value) {
    let runs: Vec<String> = (0..4).map(run_placeholder).collect();
    let mut fixture = json!({
        "generated_by": "src-tauri/src/scenarios (BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-desktop scenarios to refresh)",
        "placeholders": {
            "workspace_path": WORKSPACE_PATH,
            "workspace_id": WORKSPACE_ID,
            "data_folder": DATA_FOLDER,
            "runs": runs,
        },
        "takes": takes,
    });
    let more = |v: Value| v.as_object().cloned().unwrap_or_default();
    fixture["placeholders"]
        .as_object_mut()
        .unwrap()
        .extend(more(placeholders));
    fixture.as_object_mut().unwrap().extend(more(fields));
    let fixture = sorted(fixture);
    let text = normalise::steady(&(serde_json::to_string_pretty(&fixture).unwrap() + "\n"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("ui/src/dev/mock/fixtures/scenarios")
        .join(format!("{name}.json"));
    compare_or_write(&path, &text);
}

/// With `BEARAGENT_UPDATE_FIXTURES` set writes `text` to the fixture
/// `path`; otherwise fails when the file is not `text`.
fn compare_or_write(path: &Path, text: &str) {
    if std::env::var_os("BEARAGENT_UPDATE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    if on_disk != text {
        let name = path.file_name().unwrap().to_string_lossy();
        let fresh = std::env::temp_dir().join(format!("bearagent-scenario-{name}"));
        std::fs::write(&fresh, text).unwrap();
        panic!(
            "{} is stale (what the runtime records now: {}): run BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-desktop scenarios, then make the UI's mock flows pass with it",
            path.display(),
            fresh.display()
        );
    }
}
