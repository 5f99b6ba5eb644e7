//! Shared bodies of the fuzz targets.
//!
//! * [`run`]: arbitrary bytes, cut into chunks at input-chosen offsets,
//!   through one protocol's pure decoder; the stream contract is checked so
//!   a violation is a finding, not only a panic.
//! * [`json_text_reply`]: arbitrary text through the strict JSON-text reply
//!   parser; an accepted reply must survive re-encoding.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]

use bearagent_kernel::{Action, HistoryItem, Role, ToolCall};
use bearagent_providers::json_text::{encode_history, parse_reply};
use bearagent_providers::{decode, Protocol, StreamItem};
use serde_json::Value;

/// The first byte chooses up to 7 cut points (its low 3 bits) taken from
/// the next bytes; the rest is the response body.
pub fn run(protocol: Protocol, data: &[u8]) {
    let (cuts, body) = match data.split_first() {
        Some((first, rest)) => {
            let n = usize::from(first & 7).min(rest.len());
            rest.split_at(n)
        }
        None => (&[][..], data),
    };
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|c| usize::from(*c) * body.len() / 255)
        .collect();
    points.sort_unstable();
    let mut chunks = Vec::with_capacity(points.len() + 1);
    let mut at = 0;
    for p in points {
        chunks.push(&body[at..p]);
        at = p;
    }
    chunks.push(&body[at..]);
    let items = decode::decode(protocol, &chunks);
    let terminal =
        |i: &Result<StreamItem, _>| matches!(i, Err(_) | Ok(StreamItem::Completed { .. }));
    assert_eq!(items.iter().filter(|i| terminal(i)).count(), 1);
    assert!(items.last().is_some_and(terminal));
}

/// Arbitrary bytes (lossily decoded as UTF-8) through
/// `json_text::parse_reply`. Besides "no panic":
/// * a refusal carries a reason (it is what the model is told);
/// * an accepted reply round-trips: a final answer's serde form (which is
///   the reply format) parses back to the same answer, and a tool call
///   re-encoded by `encode_history` (the assistant turn the model sees
///   later, in the reply format) parses back to the same call.
pub fn json_text_reply(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let action = match parse_reply(&text) {
        Ok(action) => action,
        Err(reason) => {
            assert!(!reason.is_empty(), "a refusal without a reason");
            return;
        }
    };
    let canonical = match &action {
        Action::FinalAnswer(_) => {
            serde_json::to_string(&action).expect("an Action always serialises")
        }
        // A reply names exactly one call; its reply form is the history's.
        Action::ToolCalls { calls } => {
            assert_eq!(calls.len(), 1, "one reply, one call");
            let encoded = encode_history(&[HistoryItem::ToolCall(calls[0].clone())]);
            assert_eq!(encoded.len(), 1);
            assert_eq!(encoded[0].role, Role::Assistant);
            encoded[0].content.clone()
        }
    };
    let again = parse_reply(&canonical)
        .unwrap_or_else(|e| panic!("canonical form {canonical:?} refused: {e}"));
    assert!(same_action(&action, &again), "{action:?} != {again:?}");
}

/// Equality of actions, except that floating-point numbers in tool
/// arguments may differ in the last bits: serde_json (without its
/// `float_roundtrip` feature, which the app does not enable) parses floats
/// on a best-effort basis, so text -> f64 -> text -> f64 may move one ulp.
fn same_action(a: &Action, b: &Action) -> bool {
    match (a, b) {
        (Action::FinalAnswer(a), Action::FinalAnswer(b)) => a == b,
        (Action::ToolCalls { calls: a }, Action::ToolCalls { calls: b }) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_call(a, b))
        }
        (Action::FinalAnswer(_), Action::ToolCalls { .. })
        | (Action::ToolCalls { .. }, Action::FinalAnswer(_)) => false,
    }
}

fn same_call(a: &ToolCall, b: &ToolCall) -> bool {
    a.call_id == b.call_id
        && a.tool_name == b.tool_name
        && a.arguments.len() == b.arguments.len()
        && a
            .arguments
            .iter()
            .zip(&b.arguments)
            .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => {
                    let diff = (x - y).abs();
                    x == y || diff <= x.abs().max(y.abs()) * 1e-12 || diff <= 1e-300
                }
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_value(vx, vy))
        }
        _ => a == b,
    }
}
