//! Bare JSON: `{"name": "read_file", "arguments": {"path": "a.md"}}`
//! somewhere in the reply (the shape Qwen2.5-Coder prints through
//! llama-server), or an array of such objects. Fenced code is left to
//! `fenced.rs`: JSON inside ```python is an example, not a call.

use super::shape::{calls_in, first_value, names_known_tool, Known, Wrapper};
use super::types::{Found, TextCallError};
use bearagent_kernel::TextCallDialect;
use std::ops::Range;

const DIALECT: TextCallDialect = TextCallDialect::BareJson;

/// The calls in the text outside `fences`.
pub(super) fn find(text: &str, fences: &[Range<usize>], known: &Known) -> Vec<Found> {
    if let Some(found) = whole_reply(text, known) {
        return found;
    }
    scan(text, fences, known, DIALECT)
}

/// The reply is exactly one JSON value: its call-shaped objects are
/// calls, an unknown name among them invalid.
fn whole_reply(text: &str, known: &Known) -> Option<Vec<Found>> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(trimmed).ok()?;
    Some(calls_in(&value, known, Wrapper::Whole, DIALECT))
}

/// Every top-level JSON object (or array of objects) in `text` outside
/// `skip`, in order. A `{` that opens no JSON is prose or code; one that
/// starts a call to a known tool but does not parse is a broken call.
pub(super) fn scan(
    text: &str,
    skip: &[Range<usize>],
    known: &Known,
    dialect: TextCallDialect,
) -> Vec<Found> {
    let mut found = Vec::new();
    let mut broken = None;
    let mut at = 0;
    while let Some(offset) = text[at..].find(['{', '[']) {
        let start = at + offset;
        if let Some(fence) = skip.iter().find(|r| r.contains(&start)) {
            at = fence.end.max(start + 1);
            continue;
        }
        let rest = &text[start..];
        if rest.starts_with('[') && !rest[1..].trim_start().starts_with('{') {
            at = start + 1;
            continue;
        }
        match first_value(rest) {
            Ok((value, used)) => {
                found.extend(calls_in(&value, known, Wrapper::Implicit, dialect));
                at = start + used.max(1);
            }
            Err(e) => {
                if broken.is_none() && names_known_tool(rest, known).is_some() {
                    broken = Some(TextCallError::NotJson {
                        detail: e.to_string(),
                    });
                }
                at = start + 1;
            }
        }
    }
    // A broken call matters only when nothing else was taken: a call that
    // parsed later may be the model's own correction.
    match (found.is_empty(), broken) {
        (true, Some(error)) => vec![Err((dialect, error))],
        _ => found,
    }
}
