//! Hermes / Qwen2.5: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`,
//! one or several, the last closing tag often missing. A body in the
//! Qwen3-Coder XML form is `qwen_xml.rs`'s (it looks for `<function=`
//! before this file runs). Small Qwen models sometimes wrap the call in
//! `<tools>`, the tag their template lists the tools in: that body is a
//! call only when it is call-shaped JSON naming a known tool (an echoed
//! tool list is not: `shape.rs` knows a schema from arguments).

use super::shape::{calls_in, explicit_body, first_value, Known, Wrapper};
use super::types::Found;
use bearagent_kernel::TextCallDialect;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

const LIST_OPEN: &str = "<tools>";
const LIST_CLOSE: &str = "</tools>";

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    let found: Vec<Found> = bodies(text, OPEN, &[CLOSE, OPEN])
        .into_iter()
        .filter(|body| !body.trim().is_empty())
        .flat_map(|body| explicit_body(body, known, TextCallDialect::Hermes))
        .collect();
    if !found.is_empty() {
        return found;
    }
    bodies(text, LIST_OPEN, &[LIST_CLOSE, LIST_OPEN])
        .into_iter()
        .flat_map(|body| {
            let body = body.trim();
            match first_value(body) {
                Ok((value, used)) if body[used..].trim().is_empty() => {
                    calls_in(&value, known, Wrapper::Implicit, TextCallDialect::Hermes)
                }
                _ => Vec::new(),
            }
        })
        .collect()
}

/// What follows each `open`, up to the first of `ends` (or the text's end).
pub(super) fn bodies<'t>(text: &'t str, open: &str, ends: &[&str]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        let body = &rest[at + open.len()..];
        let end = ends
            .iter()
            .filter_map(|e| body.find(e))
            .min()
            .unwrap_or(body.len());
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}
