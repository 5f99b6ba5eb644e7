//! gpt-oss's harmony format: `<|start|>assistant<|channel|>commentary
//! to=functions.NAME <|constrain|>json<|message|>{…}<|call|>` — the start
//! may be missing, the recipient may stand before the channel, and where
//! the server dropped the special tokens the JSON follows the name.

use super::shape::{arguments_of, first_value, Known};
use super::types::{Found, TextCall, TextCallError};
use bearagent_kernel::TextCallDialect;

const DIALECT: TextCallDialect = TextCallDialect::Harmony;
const RECIPIENT: &str = "to=functions.";
const MESSAGE: &str = "<|message|>";
/// Tokens that end a call's message.
const ENDS: [&str; 4] = ["<|call|>", "<|end|>", "<|return|>", "<|start|>"];

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(RECIPIENT) {
        let after = &rest[at + RECIPIENT.len()..];
        let name_end = after
            .find(|c: char| c.is_whitespace() || c == '<' || c == '{' || c == '"')
            .unwrap_or(after.len());
        let name = &after[..name_end];
        let next = after.find(RECIPIENT).unwrap_or(after.len());
        found.push(call_of(name, &after[name_end..next], known));
        rest = &after[next..];
    }
    found
}

/// One call: its name and what follows it up to the next recipient.
fn call_of(name: &str, tail: &str, known: &Known) -> Found {
    if !known.has(name) {
        return Err((DIALECT, known.unknown(name)));
    }
    let message = match tail.find(MESSAGE) {
        Some(at) => &tail[at + MESSAGE.len()..],
        // Special tokens dropped: the JSON follows "json" or the name.
        None => tail.find('{').map_or("", |at| &tail[at..]),
    };
    let end = ENDS
        .iter()
        .filter_map(|e| message.find(e))
        .min()
        .unwrap_or(message.len());
    let arguments = first_value(message[..end].trim())
        .map_err(|e| TextCallError::NotJson {
            detail: e.to_string(),
        })
        .and_then(|(value, _)| arguments_of(name, &value));
    arguments
        .map(|arguments| TextCall {
            name: name.to_owned(),
            arguments,
            dialect: DIALECT,
        })
        .map_err(|e| (DIALECT, e))
}
