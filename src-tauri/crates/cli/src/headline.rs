//! The shortest wordings, shared by the timeline, the event texts and the
//! ACP updates: any text on one bounded line, and a tool call's headline.

use bearagent_kernel::ToolCall;

/// `s` on one line (a newline shows as `⏎`), cut to `max` characters.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.chars().map(|c| if c == '\n' { '⏎' } else { c }).collect();
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
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

    fn call(tool: &str, args: serde_json::Value) -> ToolCall {
        serde_json::from_value(json!({"call_id": "c1", "tool_name": tool, "arguments": args}))
            .unwrap()
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
