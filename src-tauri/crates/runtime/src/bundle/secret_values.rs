//! Where a run put what secret-looking files hold: the texts an export
//! takes secret values from (the keys BearAgent holds are found by
//! `app/held_secrets.rs`).

use crate::artifacts::secrets::looks_secret;
use bearagent_kernel::{EventEnvelope, EventPayload};
use serde_json::Value;
use std::collections::BTreeSet;

/// Secret values found, each with its kind.
pub(crate) type Found = Vec<(String, &'static str)>;

/// What the run's tools read from or wrote into secret-looking files: a
/// `read_file` result's text, the output of a command naming such a file
/// (`cat .env`), a write's or an edit's new text.
pub(crate) fn secret_file_texts(events: &[EventEnvelope]) -> Vec<&str> {
    let mut reads = BTreeSet::new();
    let mut out = Vec::new();
    for e in events {
        match &e.payload {
            EventPayload::ToolCallRequested { call, .. } => {
                let arg = |key| call.arguments.get(key).and_then(Value::as_str);
                if arg("command").is_some_and(names_secret_file) {
                    reads.insert(call.call_id.as_str().to_owned());
                }
                if !arg("path").is_some_and(looks_secret) {
                    continue;
                }
                if call.tool_name.as_str() == "read_file" {
                    reads.insert(call.call_id.as_str().to_owned());
                }
                out.extend(["content", "new_string"].into_iter().filter_map(arg));
            }
            EventPayload::ToolCallCompleted { result, .. }
                if reads.contains(result.call_id.as_str()) =>
            {
                out.push(result.content.as_str());
            }
            _ => {}
        }
    }
    out
}

/// A command line with a word that is a secret-looking file's path.
fn names_secret_file(command: &str) -> bool {
    command
        .split(|c: char| c.is_whitespace() || ";|&<>()'\"`".contains(c))
        .any(|word| !word.is_empty() && looks_secret(word))
}

#[cfg(test)]
#[path = "secret_values_tests.rs"]
mod tests;
