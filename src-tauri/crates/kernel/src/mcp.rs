//! MCP servers in a run: the tools a server offered, recorded when it
//! started, so "what the model saw" and a replay know exactly which tools
//! existed, and the profile's per-server/tool rules.

use crate::commands::RuleDecision;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A tool an MCP server listed: the name, description and schema the model
/// is shown, and the server's annotations the policy starts from.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolRecord {
    /// What the model calls it: `server__tool`, sanitised.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    #[serde(default)]
    pub title: Option<String>,
    pub description: String,
    /// A JSON Schema object, as the server sent it.
    pub input_schema: Value,
    /// `true` makes it a read tool; anything else counts as a write.
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    #[serde(default)]
    pub destructive_hint: Option<bool>,
}

/// The profile's `mcp_rules`: `"server"` or `"server.tool"` (the server's
/// own tool name) → allow / ask / deny. A tool's rule beats its server's.
pub type McpRules = BTreeMap<String, RuleDecision>;

/// The rule that decides `tool` of `server`, with its key, if any.
pub fn mcp_rule_for<'a>(
    rules: &'a McpRules,
    server: &str,
    tool: &str,
) -> Option<(&'a str, RuleDecision)> {
    rules
        .get_key_value(&format!("{server}.{tool}"))
        .or_else(|| rules.get_key_value(server))
        .map(|(k, d)| (k.as_str(), *d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_rule_beats_its_servers_rule() {
        let rules = McpRules::from([
            ("everything".into(), RuleDecision::Deny),
            ("everything.echo".into(), RuleDecision::Allow),
        ]);
        assert_eq!(
            mcp_rule_for(&rules, "everything", "echo"),
            Some(("everything.echo", RuleDecision::Allow))
        );
        assert_eq!(
            mcp_rule_for(&rules, "everything", "get-sum"),
            Some(("everything", RuleDecision::Deny))
        );
        assert_eq!(mcp_rule_for(&rules, "other", "echo"), None);
    }
}
