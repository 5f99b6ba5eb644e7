//! The compact profile, for models run with a small window (≤ 16 k
//! tokens, most local servers): a short system prompt, four tools with
//! one-line descriptions and only their required arguments, whole-file
//! writes instead of `edit_file` (what small models get right), and tool
//! results capped to a share of the window. A run's profile is chosen once
//! at its start and recorded as its context version, so "what the model
//! saw" rebuilds a compact request as it was sent.

use bearagent_kernel::{ContextCaps, EventEnvelope, EventPayload};
use bearagent_providers::ToolSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The context version of a compact run's requests.
pub const COMPACT_CONTEXT_VERSION: &str = "context-v3-compact";

/// The most a compact request lets the model write (the adapters' default
/// is 4 096): a small model caught in a repetition loop — measured with
/// Qwen2.5-Coder 0.5B, which repeated one line until the cap — stops in
/// about two minutes on one core instead of five, and prompt plus answer
/// stay inside an 8 k window. A whole small file still fits.
pub const COMPACT_MAX_OUTPUT_TOKENS: u32 = 2_048;

/// Windows up to this many tokens get the compact profile.
pub const COMPACT_UP_TO_TOKENS: u64 = 16_384;

const COMPACT_RULES: &str = "You are BearAgent, a coding agent working in one workspace folder. \
Call the tools to look at and change files; paths are relative to the workspace. \
To change a file, read it, then write the whole new content with write_file. \
A denied call returns the user's reason: do something else. \
When the goal is met, reply with a one-paragraph summary and no tool call.";

/// The tools a compact request offers, with their one-line descriptions.
/// Writes are whole files: small models get `edit_file`'s exact
/// `old_string` wrong far more often than a full rewrite.
const OFFERED: [(&str, &str); 4] = [
    (
        "list_dir",
        "List the files under a folder (\".\" is the workspace).",
    ),
    ("read_file", "Return a text file's content."),
    (
        "run_command",
        "Run a shell command in the workspace; returns its exit code and output.",
    ),
    ("write_file", "Create a file, or replace its whole content."),
];

/// How a run's requests are assembled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextProfile {
    Full,
    Compact,
}

impl std::str::FromStr for ContextProfile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "full" => Ok(Self::Full),
            "compact" => Ok(Self::Compact),
            other => Err(format!(
                "context_profile must be \"full\" or \"compact\" (unset: compact for windows up to {COMPACT_UP_TO_TOKENS} tokens), not {other:?}"
            )),
        }
    }
}

impl ContextProfile {
    /// The profile a run gets: the one its profile names, else the one
    /// for the model's window.
    pub fn chosen(named: Option<Self>, window: u64) -> Self {
        named.unwrap_or_else(|| Self::for_window(window))
    }

    /// The profile for a model run with `window` tokens.
    pub fn for_window(window: u64) -> Self {
        if window <= COMPACT_UP_TO_TOKENS {
            Self::Compact
        } else {
            Self::Full
        }
    }

    /// The profile a run recorded at its start (its `RunCreated`'s
    /// context version): runs from before profiles existed are full.
    pub fn of_run(events: &[EventEnvelope]) -> Self {
        match events.first().map(|e| &e.payload) {
            Some(EventPayload::RunCreated {
                config_versions, ..
            }) if config_versions.get("context").map(String::as_str)
                == Some(COMPACT_CONTEXT_VERSION) =>
            {
                Self::Compact
            }
            _ => Self::Full,
        }
    }

    /// The caps a run of this profile records: a compact run's tool
    /// results keep to about an eighth of the window (at 3 bytes a token)
    /// so one `read_file` cannot fill it.
    pub fn caps(self, caps: ContextCaps, window: u64) -> ContextCaps {
        match self {
            Self::Full => caps,
            Self::Compact => {
                let share = u32::try_from(window.saturating_mul(3) / 8).unwrap_or(u32::MAX);
                ContextCaps {
                    max_tool_result_bytes: caps.max_tool_result_bytes.min(share.max(1_024)),
                    ..caps
                }
            }
        }
    }
}

/// The compact system prompt's fixed rules.
pub(super) fn compact_rules() -> &'static str {
    COMPACT_RULES
}

/// The tools a compact request offers, from those the run has: the four
/// of [`OFFERED`] (when the run has them: plan mode has no writes) with
/// short descriptions and required arguments only. MCP tools the user
/// configured stay, cut the same way.
pub(super) fn compact_tools(tools: &[ToolSchema]) -> Vec<ToolSchema> {
    tools
        .iter()
        .filter_map(|tool| {
            let description = match OFFERED.iter().find(|(name, _)| *name == tool.name) {
                Some((_, short)) => (*short).to_owned(),
                None if is_builtin(&tool.name) => return None,
                None => first_sentence(&tool.description),
            };
            Some(ToolSchema {
                name: tool.name.clone(),
                description,
                parameters: required_only(&tool.parameters),
            })
        })
        .collect()
}

/// BearAgent's own tools (MCP tools are named `server__tool`).
fn is_builtin(name: &str) -> bool {
    !name.contains("__")
}

fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    text[..end].chars().take(160).collect()
}

/// A JSON Schema object with only its required properties, each without
/// its description (the names say enough for the four tools).
fn required_only(schema: &Value) -> Value {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut properties = Map::new();
    if let Some(all) = schema.get("properties").and_then(Value::as_object) {
        for name in &required {
            if let Some(property) = all.get(*name) {
                properties.insert((*name).to_owned(), undescribed(property));
            }
        }
    }
    serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
    })
}

fn undescribed(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), undescribed(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(undescribed).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
#[path = "context_profile_tests.rs"]
mod tests;
