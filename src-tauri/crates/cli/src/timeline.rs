//! The human timeline's layout: one line per event with its seq and the
//! time since the run started (`+1.2s`; full timestamps stay in `--json`),
//! and a tool call's events grouped under its headline like the app's
//! cards:
//!
//! ```text
//! #16    +2.1s  ┌ edit_file calc.py
//! #17    +2.1s  ├ approval requested: edit calc.py: …
//! #21    +2.4s  └ ok: edited calc.py: …
//! #22    +2.4s    modified calc.py
//! ```

use crate::render::{event_text, one_line};
use bearagent_kernel::{CallId, EventEnvelope, EventPayload, Timestamp, ToolCall};
use std::collections::HashMap;

/// Where the text of model output and command output starts: under the
/// event text, past the seq and time columns.
pub const TEXT_GUTTER: &str = "               │ ";

/// The state a timeline needs between lines: when the run started and
/// which tool calls are open.
#[derive(Default)]
pub struct Timeline {
    started: Option<Timestamp>,
    open: HashMap<CallId, ToolCall>,
}

impl Timeline {
    /// A timeline whose times count from `started` (the run's first event);
    /// without it they count from the first event printed.
    pub fn new(started: Option<Timestamp>) -> Self {
        Timeline {
            started,
            open: HashMap::new(),
        }
    }

    /// The line for `e`, grouped with its tool call.
    pub fn line(&mut self, e: &EventEnvelope) -> String {
        let started = *self.started.get_or_insert(e.at);
        let mark = self.mark(&e.payload);
        let text = event_text(&e.payload);
        format!("#{:<4} {:>7}  {mark}{text}", e.seq, since(started, e.at))
    }

    /// A call the run asked for and has not finished: what the approval
    /// prompt previews.
    pub fn open_call(&self, id: &CallId) -> Option<&ToolCall> {
        self.open.get(id)
    }

    /// The group mark: `┌` opens a call, `├` continues it, `└` ends it,
    /// and what the call left after it ended is indented under it.
    fn mark(&mut self, p: &EventPayload) -> &'static str {
        let Some(id) = p.call_id() else {
            return "";
        };
        match p {
            EventPayload::ToolCallRequested { call } => {
                self.open.insert(id.clone(), call.clone());
                "┌ "
            }
            EventPayload::ToolCallCompleted { .. } | EventPayload::ToolCallFailed { .. } => {
                self.open.remove(id);
                "└ "
            }
            _ if self.open.contains_key(id) => "├ ",
            _ => "  ",
        }
    }
}

/// `+0.4s`, `+12m05s`, `+2h03m`: short enough for every line.
pub fn since(started: Timestamp, at: Timestamp) -> String {
    let ms = at.millis_since(started);
    let secs = ms / 1000;
    if secs < 60 {
        format!("+{}.{}s", secs, (ms % 1000) / 100)
    } else if secs < 3600 {
        format!("+{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("+{}h{:02}m", secs / 3600, (secs % 3600) / 60)
    }
}

/// A call's headline: the tool and what it is about (`read_file
/// src/lib.rs`, `run_command: cargo test`); a tool BearAgent does not know
/// the arguments of (MCP) shows them as JSON.
pub fn call_headline(call: &ToolCall) -> String {
    let arg = |name: &str| call.arguments.get(name).and_then(|v| v.as_str());
    let name = call.tool_name.as_str();
    let about = match name {
        "run_command" => arg("command").map(|c| format!(": {}", one_line(c, 160))),
        "write_file" => arg("path").map(|p| {
            let bytes = arg("content").map_or(0, str::len);
            format!(
                " {p} ({})",
                bearagent_kernel::units::human_bytes(bytes as u64)
            )
        }),
        "search_text" => arg("pattern").map(|pat| {
            format!(
                " \"{}\" in {}",
                one_line(pat, 80),
                arg("path").unwrap_or(".")
            )
        }),
        "read_file" | "edit_file" | "list_dir" => Some(format!(" {}", arg("path").unwrap_or("."))),
        _ => None,
    };
    about.map_or_else(
        || {
            let args = serde_json::Value::Object(call.arguments.clone()).to_string();
            format!("{name} {}", one_line(&args, 140))
        },
        |about| format!("{name}{about}"),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_800_000_000_000 + ms).unwrap()
    }

    fn call(tool: &str, args: serde_json::Value) -> ToolCall {
        serde_json::from_value(json!({"call_id": "c1", "tool_name": tool, "arguments": args}))
            .unwrap()
    }

    #[test]
    fn times_are_short_and_count_from_the_start() {
        assert_eq!(since(at(0), at(0)), "+0.0s");
        assert_eq!(since(at(0), at(1_234)), "+1.2s");
        assert_eq!(since(at(0), at(725_000)), "+12m05s");
        assert_eq!(since(at(0), at(7_380_000)), "+2h03m");
    }

    #[test]
    fn headlines_say_what_a_call_is_about() {
        let cases = [
            (
                call("read_file", json!({"path": "src/lib.rs"})),
                "read_file src/lib.rs",
            ),
            (
                call("run_command", json!({"command": "cargo test\n--lib"})),
                "run_command: cargo test⏎--lib",
            ),
            (
                call("write_file", json!({"path": "a.md", "content": "hello"})),
                "write_file a.md (5 bytes)",
            ),
            (
                call("search_text", json!({"pattern": "fn main"})),
                "search_text \"fn main\" in .",
            ),
            (
                call("docs__search", json!({"q": "x"})),
                "docs__search {\"q\":\"x\"}",
            ),
        ];
        for (c, want) in cases {
            assert_eq!(call_headline(&c), want);
        }
    }
}
