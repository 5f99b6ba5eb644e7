//! The offline demo: a small sample workspace in a temp folder and a
//! scripted model that reads, asks to write, and answers. Always labelled
//! as a demo wherever it is shown.

use crate::AppError;
use bearagent_kernel::RunId;
use bearagent_providers::ScriptedProvider;
use std::path::{Path, PathBuf};

/// Provider name runs of the demo record.
pub const DEMO_PROVIDER: &str = "demo";

const FILES: &[(&str, &str)] = &[
    ("README.md", "# Greeter\n\nA tiny sample project for the BearAgent demo.\n"),
    (
        "docs/notes.md",
        "# Notes\n\n- The greeter says hello in English only.\n- Users asked for French and Spanish.\n- Keep the API: `greet(name, lang=\"en\")`.\n",
    ),
    (
        "src/greeter.py",
        "def greet(name, lang=\"en\"):\n    return f\"Hello, {name}!\"\n",
    ),
];

const SCRIPT: &str = r##"[
  {"text": "Let me look at the project first. ",
   "tool_call": {"tool_name": "list_dir", "arguments": {"path": "."}}},
  {"text": "Reading the notes. ",
   "tool_call": {"tool_name": "read_file", "arguments": {"path": "docs/notes.md"}}},
  {"text": "I will write a short plan next to the notes; this write needs your approval. ",
   "tool_call": {"tool_name": "write_file", "arguments": {"path": "docs/plan.md",
     "content": "# Plan\n\n1. Add a table of greetings per language (en, fr, es).\n2. Look the greeting up in `greet`, defaulting to English.\n3. Add tests for each language.\n"}}},
  {"final_answer": "I read docs/notes.md and wrote docs/plan.md: add a per-language greeting table to greet(), default to English, and test each language.",
   "after_error": {"final_answer": "I read docs/notes.md. The write to docs/plan.md did not happen (you declined it, or the file changed meanwhile), so nothing was changed; the plan would be: add a per-language greeting table to greet(), default to English, and test each language."}}
]"##;

/// What the demo model does in a follow-up: it looks at the plan again and
/// says, honestly, that it is scripted.
const FOLLOW_UP_SCRIPT: &str = r##"[
  {"text": "Looking at the plan again with our conversation in view. ",
   "tool_call": {"tool_name": "read_file", "arguments": {"path": "docs/plan.md"}}},
  {"final_answer": "Demo follow-up: I re-read docs/plan.md with the earlier conversation in view. The demo model is scripted, so it gives this answer to any message; connect a real provider in Settings for real replies.",
   "after_error": {"final_answer": "Demo follow-up: docs/plan.md is not there (the write was declined or reverted). The demo model is scripted, so it gives this answer to any message; connect a real provider in Settings for real replies."}}
]"##;

/// The demo's scripted model.
pub fn demo_provider() -> Result<ScriptedProvider, AppError> {
    ScriptedProvider::from_json(SCRIPT)
        .map(|p| p.named(DEMO_PROVIDER).with_model("demo-script"))
        .map_err(|e| AppError::Corrupt(format!("the built-in demo script is invalid: {e}")))
}

/// Writes the sample workspace into a new folder under `parent`.
#[expect(
    clippy::disallowed_methods,
    reason = "the demo's sample workspace, made fresh in the temp folder"
)]
pub fn create_demo_workspace(parent: &Path) -> Result<PathBuf, AppError> {
    let root = parent.join(format!("bearagent-demo-{}", RunId::new()));
    for (rel, content) in FILES {
        let path = root.join(rel);
        let io = |source| AppError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(&path, content).map_err(io)?;
    }
    Ok(root)
}

/// The demo model's follow-up: it re-reads the plan and says it is
/// scripted.
pub(crate) fn demo_follow_up_provider() -> Result<ScriptedProvider, AppError> {
    ScriptedProvider::from_json(FOLLOW_UP_SCRIPT)
        .map(|p| p.named(DEMO_PROVIDER).with_model("demo-script"))
        .map_err(|e| AppError::Corrupt(format!("the built-in demo script is invalid: {e}")))
}
