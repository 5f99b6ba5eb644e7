//! Mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}]`, and the newer
//! `[TOOL_CALLS]name[ARGS]{…}` (with `[CALL_ID]id` before `[ARGS]` in some
//! templates), one marker per call.

use super::hermes::bodies;
use super::shape::{arguments_of, explicit_body, first_value, Known};
use super::types::{Found, TextCall, TextCallError};
use bearagent_kernel::TextCallDialect;

const DIALECT: TextCallDialect = TextCallDialect::Mistral;
const MARKER: &str = "[TOOL_CALLS]";

pub(super) fn find(text: &str, known: &Known) -> Vec<Found> {
    bodies(text, MARKER, &[MARKER])
        .into_iter()
        .flat_map(|body| {
            let body = body.trim_start();
            if body.starts_with('[') || body.starts_with('{') {
                explicit_body(body, known, DIALECT)
            } else {
                vec![named(body, known)]
            }
        })
        .collect()
}

/// `name[ARGS]{…}` (or `name[CALL_ID]id[ARGS]{…}`).
fn named(body: &str, known: &Known) -> Found {
    let (head, args) = body.split_once("[ARGS]").unwrap_or((body, ""));
    let name = head.split("[CALL_ID]").next().unwrap_or(head).trim();
    if name.is_empty() {
        let known = known.list();
        return Err((DIALECT, TextCallError::NoName { known }));
    }
    if !known.has(name) {
        return Err((DIALECT, known.unknown(name)));
    }
    let arguments = if args.trim().is_empty() {
        Ok(serde_json::Map::new())
    } else {
        first_value(args.trim())
            .map_err(|e| TextCallError::NotJson {
                detail: e.to_string(),
            })
            .and_then(|(value, _)| arguments_of(name, &value))
    };
    arguments
        .map(|arguments| TextCall {
            name: name.to_owned(),
            arguments,
            dialect: DIALECT,
        })
        .map_err(|e| (DIALECT, e))
}
