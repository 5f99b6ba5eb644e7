//! Hermes / Qwen2.5: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`,
//! one or several, the last closing tag often missing. A body in the
//! Qwen3-Coder XML form is `qwen_xml.rs`'s (it looks for `<function=`
//! before this file runs).

use super::shape::{explicit_body, Known};
use super::types::Found;
use bearagent_kernel::TextCallDialect;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    bodies(text, OPEN, &[CLOSE, OPEN])
        .into_iter()
        .filter(|body| !body.trim().is_empty())
        .flat_map(|body| explicit_body(body, known, TextCallDialect::Hermes))
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
