//! What makes two recordings of one scenario differ on two machines (or
//! two runs on one), taken out so the fixture is stale only when the
//! runtime's behaviour changed: how a stream happened to be cut into
//! chunks, and the wall-clock durations of commands and server starts.

use bearagent_runtime::LiveEvent;
use serde_json::Value;

/// The duration every recorded command and MCP server start is given.
pub const COMMAND_MS: u64 = 1_840;
pub const STARTUP_MS: u64 = 412;

/// `events` as the window receives them, with consecutive text deltas of
/// one model call and consecutive output of one command joined (the mock
/// cuts them again as it plays).
pub fn merged(events: impl Iterator<Item = LiveEvent>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for event in events {
        let update = serde_json::to_value(crate::live::update(event)).unwrap();
        if let Some(last) = out.last_mut() {
            if joins(last, &update) {
                let text = format!(
                    "{}{}",
                    last["text"].as_str().unwrap(),
                    update["text"].as_str().unwrap()
                );
                last["text"] = Value::String(text);
                continue;
            }
        }
        out.push(update);
    }
    out
}

/// Both are text of the same model call, or output of the same command.
fn joins(a: &Value, b: &Value) -> bool {
    let same = |key: &str| a[key] == b[key];
    a["kind"] == b["kind"]
        && match a["kind"].as_str() {
            Some("model_text") => same("runId") && same("modelCall"),
            Some("command_output") => same("runId") && same("callId"),
            _ => false,
        }
}

/// The process that wrote a worktree step (`instance`, `pid`), fixed.
pub const INSTANCE: &str = "0190a000-0000-7000-8000-0000000000e1";
pub const PID: u64 = 4_242;

/// `value` with the writer of every worktree step replaced by the fixed one.
pub fn steady_owners(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let step = matches!(
                map.get("kind").and_then(Value::as_str),
                Some("apply_started" | "removal_started")
            );
            if step && map.contains_key("instance") {
                map.insert("instance".into(), Value::String(INSTANCE.into()));
                map.insert("pid".into(), Value::from(PID));
            }
            map.values_mut().for_each(steady_owners);
        }
        Value::Array(items) => items.iter_mut().for_each(steady_owners),
        _ => {}
    }
}

/// `text` (a pretty-printed fixture) with the machine's durations replaced
/// by the fixed ones, in the events and in what the model was told.
pub fn steady(text: &str) -> String {
    let text = replace_number_after(text, "\"duration_ms\": ", "", &COMMAND_MS.to_string());
    let text = replace_number_after(&text, "\"startup_ms\": ", "", &STARTUP_MS.to_string());
    let told = format!("{:.1}", COMMAND_MS as f64 / 1000.0);
    // The status line ends there, or goes on with the network note.
    let text = replace_number_after(&text, ", after ", " s\\n", &told);
    let text = replace_number_after(&text, ", after ", " s; ", &told);
    // The request's digest covers the workspace's temporary path.
    replace_digests(&text, "\"request_digest\": \"")
}

/// Replaces each 64-digit hex digest that follows `before` with zeros.
fn replace_digests(text: &str, before: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(before) {
        let (head, tail) = rest.split_at(i + before.len());
        out.push_str(head);
        let is_digest = tail.len() >= 64 && tail.as_bytes()[..64].iter().all(u8::is_ascii_hexdigit);
        if is_digest {
            out.push_str(&"0".repeat(64));
            rest = &tail[64..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// Replaces each number (digits and dots) that follows `before` and is
/// followed by `after` with `with`.
fn replace_number_after(text: &str, before: &str, after: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(before) {
        let (head, tail) = rest.split_at(i + before.len());
        out.push_str(head);
        let len = tail
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(tail.len());
        if len > 0 && tail[len..].starts_with(after) {
            out.push_str(with);
            rest = &tail[len..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_fixed_and_nothing_else_moves() {
        let text = "\"duration_ms\": 7,\n\"startup_ms\": 1203\n\"content\": \"exit code 1, after 0.0 s\\nok\"\n\"x\": \", after 3 days\"";
        assert_eq!(
            steady(text),
            "\"duration_ms\": 1840,\n\"startup_ms\": 412\n\"content\": \"exit code 1, after 1.8 s\\nok\"\n\"x\": \", after 3 days\""
        );
        assert_eq!(
            steady("\"content\": \"exit code 0, after 0.1 s; network off in the sandbox\\n\""),
            "\"content\": \"exit code 0, after 1.8 s; network off in the sandbox\\n\""
        );
    }
}
