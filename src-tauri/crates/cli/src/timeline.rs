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

use crate::render::event_text;
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
            EventPayload::ToolCallRequested { call, .. } => {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_800_000_000_000 + ms).unwrap()
    }

    #[test]
    fn times_are_short_and_count_from_the_start() {
        assert_eq!(since(at(0), at(0)), "+0.0s");
        assert_eq!(since(at(0), at(1_234)), "+1.2s");
        assert_eq!(since(at(0), at(725_000)), "+12m05s");
        assert_eq!(since(at(0), at(7_380_000)), "+2h03m");
    }
}
