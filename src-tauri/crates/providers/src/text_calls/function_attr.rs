//! Calls as XML attributes, which small Qwen models write inside `<tools>`:
//! `<function name="read_file" arguments='{"path": "notes.txt"}'/>`, one
//! or several. Explicit syntax: a call whatever it names. Read as the Qwen
//! XML dialect (the same family's XML calls).

use super::shape::{arguments_of, Known};
use super::types::{Found, TextCall, TextCallError};
use bearagent_kernel::TextCallDialect;
use serde_json::{Map, Value};

const DIALECT: TextCallDialect = TextCallDialect::QwenXml;
const OPEN: &str = "<function name=";

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let tag = &rest[at + OPEN.len()..];
        let (call, used) = call_of(tag, known);
        found.push(call);
        rest = &tag[used..];
    }
    found
}

/// The call a tag's attributes make, and how much of `tag` it used.
fn call_of(tag: &str, known: &Known) -> (Found, usize) {
    let no_name = || {
        let known = known.list();
        Err((DIALECT, TextCallError::NoName { known }))
    };
    let Some((name, after_name)) = quoted(tag) else {
        return (no_name(), 0);
    };
    let name = name.trim();
    let args = arguments_attr(&tag[after_name..]);
    // The arguments' JSON may hold `>`: the tag ends after the value.
    let end = tag_end(tag, after_name + args.map_or(0, |(_, used)| used));
    if !known.has(name) {
        return (Err((DIALECT, known.unknown(name))), end);
    }
    let arguments = match args {
        Some((raw, _)) => arguments_of(name, &Value::String(raw.to_owned())),
        None => Ok(Map::new()),
    };
    let call = arguments
        .map(|arguments| TextCall {
            name: name.to_owned(),
            arguments,
            dialect: DIALECT,
        })
        .map_err(|e| (DIALECT, e));
    (call, end)
}

/// A quoted attribute value at the start of `text` (either quote), and
/// where it ends: at its quote followed by the tag's end or another
/// attribute, so JSON holding the other quote (or `>`) stays whole.
fn quoted(text: &str) -> Option<(&str, usize)> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &text[1..];
    let mut from = 0;
    while let Some(i) = body[from..].find(quote) {
        let at = from + i;
        let next = body[at + 1..].trim_start();
        if next.is_empty() || next.starts_with(['/', '>']) || starts_attribute(next) {
            return Some((&body[..at], at + 2));
        }
        from = at + 1;
    }
    None
}

/// `name=` at the start of `text`: the next attribute.
fn starts_attribute(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    })
}

/// The `arguments='…'` value after the name, and where it ends in `rest`.
fn arguments_attr(rest: &str) -> Option<(&str, usize)> {
    const ARGS: &str = "arguments=";
    let at = rest.find(ARGS)? + ARGS.len();
    quoted(&rest[at..]).map(|(raw, used)| (raw, at + used))
}

/// Where the tag ends (after `/>` or `>`), looking from `from` in `tag`.
fn tag_end(tag: &str, from: usize) -> usize {
    let tail = &tag[from..];
    let close = tail
        .find("/>")
        .map(|i| i + 2)
        .or_else(|| tail.find('>').map(|i| i + 1));
    from + close.unwrap_or(tail.len())
}
