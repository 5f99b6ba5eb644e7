//! Qwen3-Coder's XML calls:
//! `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…</function></tool_call>`.
//! A value is text; where the tool's schema gives the parameter a type
//! other than string and the text parses as JSON, it is that JSON.

use super::hermes::bodies;
use super::shape::Known;
use super::types::{Found, TextCall, TextCallError};
use bearagent_kernel::TextCallDialect;
use serde_json::{Map, Value};

const DIALECT: TextCallDialect = TextCallDialect::QwenXml;
const FUNCTION: &str = "<function=";
const PARAMETER: &str = "<parameter=";

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    bodies(text, FUNCTION, &["</function>", FUNCTION, "</tool_call>"])
        .into_iter()
        .map(|body| call_of(body, known))
        .collect()
}

/// `NAME>` then its parameters.
fn call_of(body: &str, known: &Known) -> Found {
    let Some((name, params)) = body.split_once('>') else {
        return Err((
            DIALECT,
            TextCallError::NoName {
                known: known.list(),
            },
        ));
    };
    let name = name.trim();
    if !known.has(name) {
        return Err((DIALECT, known.unknown(name)));
    }
    let mut arguments = Map::new();
    for param in bodies(params, PARAMETER, &["</parameter>", PARAMETER]) {
        let Some((key, value)) = param.split_once('>') else {
            continue;
        };
        let key = key.trim();
        arguments.insert(key.to_owned(), value_of(known, name, key, value));
    }
    Ok(TextCall {
        name: name.to_owned(),
        arguments,
        dialect: DIALECT,
    })
}

/// The template puts the value on its own line: one newline either side
/// is the template's, the rest the value's.
fn value_of(known: &Known, tool: &str, key: &str, raw: &str) -> Value {
    let raw = raw.strip_prefix('\n').unwrap_or(raw);
    let raw = raw.strip_suffix('\n').unwrap_or(raw);
    if known.param_type(tool, key) == Some("string") {
        return Value::String(raw.to_owned());
    }
    serde_json::from_str(raw.trim()).unwrap_or_else(|_| Value::String(raw.to_owned()))
}
