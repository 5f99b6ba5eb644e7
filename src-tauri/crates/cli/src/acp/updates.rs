//! How BearAgent's record reads in an editor: a tool call as an ACP
//! `tool_call` (its kind, a title like the CLI's headline, the path it
//! touches) and its progress as `tool_call_update`s; a write's content as
//! a diff; long results cut so an update stays small.

use crate::headline::call_headline;
use agent_client_protocol::v1::schema::{
    ContentBlock, Diff, TextContent, ToolCall as AcpToolCall, ToolCallContent, ToolCallLocation,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use bearagent_kernel::{CallId, RunId, ToolCall};
use bearagent_runtime::ProposedChange;
use serde_json::Value;

/// Results and output sent to the editor are cut to their last this-many
/// bytes (the full text stays in BearAgent's record).
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// The editor's id of a call: the model's call id repeats across runs of a
/// session (and a scripted model reuses them), so it is qualified by the run.
pub fn call_id(run: RunId, call: &CallId) -> String {
    format!("{run}/{call}")
}

pub fn kind_of(tool: &str) -> ToolKind {
    match tool {
        "read_file" | "list_dir" => ToolKind::Read,
        "write_file" | "edit_file" => ToolKind::Edit,
        "search_text" => ToolKind::Search,
        "run_command" => ToolKind::Execute,
        "web_fetch" => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

/// The call as the editor first sees it: pending, with its arguments.
pub fn tool_call(run: RunId, call: &ToolCall, workspace: &str) -> AcpToolCall {
    let mut shown = AcpToolCall::new(call_id(run, &call.call_id), call_headline(call))
        .kind(kind_of(call.tool_name.as_str()))
        .status(ToolCallStatus::Pending)
        .raw_input(Value::Object(call.arguments.clone()));
    if let Some(path) = call.arguments.get("path").and_then(Value::as_str) {
        let abs = std::path::Path::new(workspace).join(path);
        shown = shown.locations(vec![ToolCallLocation::new(abs)]);
    }
    shown
}

/// A status change of call `id`, with `content` when there is some.
pub fn status(id: &str, status: ToolCallStatus, content: Vec<ToolCallContent>) -> ToolCallUpdate {
    let mut fields = ToolCallUpdateFields::new().status(status);
    if !content.is_empty() {
        fields = fields.content(content);
    }
    ToolCallUpdate::new(id.to_owned(), fields)
}

/// The text of a result or output as tool call content, its tail kept.
pub fn text_content(text: &str) -> ToolCallContent {
    ContentBlock::Text(TextContent::new(tail(text, MAX_TEXT_BYTES))).into()
}

/// A pending write's change as the editor's diff (both whole texts).
pub fn diff_content(change: &ProposedChange, workspace: &str) -> ToolCallContent {
    let path = std::path::Path::new(workspace).join(&change.path);
    Diff::new(path, change.after_text.clone())
        .old_text(change.before_text.clone())
        .into()
}

/// The last `max` bytes of `text` (on a character boundary), saying what
/// was left out.
pub fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[… {} earlier bytes]\n{}", start, &text[start..])
}

/// The model's todo list as an ACP `plan` (the whole list each time; the
/// editor replaces the last).
pub fn plan(items: &[bearagent_kernel::TodoItem]) -> agent_client_protocol::v1::schema::Plan {
    use agent_client_protocol::v1::schema::{Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus};
    use bearagent_kernel::TodoStatus;
    let entries = items
        .iter()
        .map(|item| {
            let status = match item.status {
                TodoStatus::Pending => PlanEntryStatus::Pending,
                TodoStatus::InProgress => PlanEntryStatus::InProgress,
                TodoStatus::Completed => PlanEntryStatus::Completed,
            };
            PlanEntry::new(item.step.clone(), PlanEntryPriority::Medium, status)
        })
        .collect();
    Plan::new(entries)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, args: Value) -> ToolCall {
        serde_json::from_value(json!({"call_id": "c1", "tool_name": tool, "arguments": args}))
            .unwrap()
    }

    #[test]
    fn a_call_reads_as_its_kind_title_and_path() {
        let run = RunId::new();
        let shown = tool_call(run, &call("edit_file", json!({"path": "src/a.rs"})), "/ws");
        let v = serde_json::to_value(&shown).unwrap();
        assert_eq!(v["toolCallId"], format!("{run}/c1"));
        assert_eq!(v["title"], "edit_file src/a.rs");
        assert_eq!(v["kind"], "edit");
        assert_eq!(v["locations"][0]["path"], "/ws/src/a.rs");
        assert_eq!(v["rawInput"]["path"], "src/a.rs");
        assert_eq!(kind_of("run_command"), ToolKind::Execute);
        assert_eq!(kind_of("web_fetch"), ToolKind::Fetch);
        assert_eq!(kind_of("docs__search"), ToolKind::Other);
    }

    #[test]
    fn long_text_keeps_its_tail_and_says_so() {
        let text = "é".repeat(10_000);
        let cut = tail(&text, 101);
        assert!(cut.starts_with("[… "), "{cut}");
        assert!(cut.ends_with('é'));
        assert_eq!(tail("short", 10), "short");
    }
}
