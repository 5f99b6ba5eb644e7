//! The names tools are shown to the model under. Providers accept only
//! `[a-zA-Z0-9_-]{1,64}`, and tools of different servers may share a name,
//! so every tool is exposed as `server__tool`, sanitised and capped.

use crate::error::McpError;
use serde_json::Value;
use std::collections::HashMap;

/// Longest name the providers accept.
pub const MAX_EXPOSED_LEN: usize = 64;
const SEPARATOR: &str = "__";

/// A tool as a server listed it, with the name the model sees.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub server: String,
    /// The server's own name for it: what `call_tool` takes.
    pub name: String,
    /// `server__tool`, `[a-zA-Z0-9_-]`, at most 64 characters.
    pub exposed_name: String,
    pub description: String,
    /// A JSON Schema object.
    pub input_schema: Value,
    /// Hints from the server; untrusted, so the policy must not rely on them.
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub title: Option<String>,
}

/// The exposed name of `tool` on `server`. Names that would be too long keep
/// their start and end with a hash of the whole, so two long names that
/// differ only in the middle stay apart.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let full = format!("{server}{SEPARATOR}{tool}");
    let clean: String = full
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.len() <= MAX_EXPOSED_LEN {
        return clean;
    }
    let hash = format!("{:08x}", fnv1a(full.as_bytes()));
    // head + '_' + hash + '_' + tail = 64; all ASCII, so byte slicing is safe.
    let keep = MAX_EXPOSED_LEN - hash.len() - 2;
    let head = keep * 2 / 3;
    let tail = keep - head;
    format!("{}_{hash}_{}", &clean[..head], &clean[clean.len() - tail..])
}

/// Sets every tool's `exposed_name` and refuses two tools that end up with
/// the same one (e.g. `a.b` and `a_b`, or server `x__y` tool `z` and server
/// `x` tool `y__z`), naming both.
pub fn expose_names(mut tools: Vec<McpTool>) -> Result<Vec<McpTool>, McpError> {
    let label = |t: &McpTool| format!("{}/{}", t.server, t.name);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, tool) in tools.iter().enumerate() {
        let exposed = exposed_name(&tool.server, &tool.name);
        if let Some(&j) = seen.get(&exposed) {
            return Err(McpError::NameCollision {
                a: label(&tools[j]),
                b: label(tool),
                exposed,
            });
        }
        seen.insert(exposed, i);
    }
    for tool in &mut tools {
        tool.exposed_name = exposed_name(&tool.server, &tool.name);
    }
    Ok(tools)
}

/// 32-bit FNV-1a: tiny, stable across releases and platforms.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(server: &str, name: &str) -> McpTool {
        McpTool {
            server: server.into(),
            name: name.into(),
            exposed_name: String::new(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
            read_only_hint: None,
            destructive_hint: None,
            title: None,
        }
    }

    fn valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_EXPOSED_LEN
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn namespaces_and_sanitises() {
        assert_eq!(exposed_name("everything", "get-sum"), "everything__get-sum");
        assert_eq!(
            exposed_name("my server", "files/read.v2"),
            "my_server__files_read_v2"
        );
        assert_eq!(exposed_name("ü", "tool"), "___tool");
    }

    #[test]
    fn long_names_are_capped_and_stay_distinct() {
        let long = "x".repeat(100);
        let a = exposed_name("srv", &format!("{long}a{long}"));
        let b = exposed_name("srv", &format!("{long}b{long}"));
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_eq!(a.len(), MAX_EXPOSED_LEN);
        assert_ne!(a, b);
        assert!(a.starts_with("srv__"), "{a}");
    }

    #[test]
    fn every_name_is_valid() {
        for (s, t) in [
            ("a", ""),
            ("", "b"),
            ("日本", "語"),
            ("a.b.c", &"é".repeat(80)),
        ] {
            let n = exposed_name(s, t);
            assert!(valid(&n), "{s}/{t} -> {n}");
        }
    }

    #[test]
    fn collisions_name_both_tools() {
        let err = expose_names(vec![tool("s", "a.b"), tool("t", "x"), tool("s", "a_b")])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("`s/a.b`") && err.contains("`s/a_b`"), "{err}");
        assert!(err.contains("`s__a_b`"), "{err}");

        let err = expose_names(vec![tool("x__y", "z"), tool("x", "y__z")]);
        assert!(matches!(err, Err(McpError::NameCollision { .. })));
    }

    #[test]
    fn distinct_tools_are_kept_in_order() {
        let tools = expose_names(vec![tool("a", "echo"), tool("b", "echo")]).unwrap_or_default();
        let names: Vec<_> = tools.iter().map(|t| t.exposed_name.as_str()).collect();
        assert_eq!(names, ["a__echo", "b__echo"]);
    }
}
