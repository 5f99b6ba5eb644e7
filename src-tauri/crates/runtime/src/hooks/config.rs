//! Hooks as configured: `[[hooks.PreToolUse]]` tables in the user's config
//! file, or in a workspace's `.bearagent/hooks.toml` (which holds nothing
//! else: a workspace cannot configure anything but hooks, and those only
//! after the user trusted the file).

use bearagent_kernel::HookEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Seconds a hook may run when its entry names no timeout.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u32 = 60;
/// The longest timeout an entry may ask for.
pub const MAX_HOOK_TIMEOUT_SECS: u32 = 600;

/// One hook: a shell command run at its event when the matcher matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookEntry {
    /// A regular expression the whole tool name (PreToolUse, PostToolUse),
    /// the start source (SessionStart: `startup`) or the compaction
    /// trigger (PreCompact: `auto`) must match. Absent, empty or `*`:
    /// always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// Run by `/bin/sh -c` in the workspace folder.
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u32>,
}

/// Event name (as Claude Code spells it) → its hooks, in order.
pub type HooksTable = BTreeMap<String, Vec<HookEntry>>;

/// The whole of a project hooks file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectHooksFile {
    #[serde(default)]
    pub hooks: HooksTable,
}

/// Why a hooks table is refused: `at` names the entry (`PreToolUse[0]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hooks.{at}: {message}")]
pub struct HookConfigError {
    pub at: String,
    pub message: String,
}

/// A checked hook, ready to match and run.
#[derive(Debug, Clone)]
pub struct CheckedHook {
    pub event: HookEvent,
    pub matcher: Option<regex::Regex>,
    /// The matcher as written (what the trust prompt shows).
    pub matcher_text: Option<String>,
    pub command: String,
    pub timeout_secs: u32,
}

impl CheckedHook {
    /// Whether the hook runs for `subject` (a tool name, a source, a
    /// trigger; None where its event has none).
    pub fn matches(&self, subject: Option<&str>) -> bool {
        match (&self.matcher, subject) {
            (None, _) | (Some(_), None) => true,
            (Some(re), Some(subject)) => re.is_match(subject),
        }
    }
}

/// Checks every entry: known event names, a command, a matcher that is a
/// regular expression, a timeout within bounds.
pub fn check_hooks(table: &HooksTable) -> Result<Vec<CheckedHook>, HookConfigError> {
    let mut checked = Vec::new();
    for (name, entries) in table {
        let Some(event) = HookEvent::from_name(name) else {
            let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
            return Err(HookConfigError {
                at: name.clone(),
                message: format!("unknown hook event; known: {}", known.join(", ")),
            });
        };
        for (i, entry) in entries.iter().enumerate() {
            let error = |message: String| HookConfigError {
                at: format!("{name}[{i}]"),
                message,
            };
            if entry.command.trim().is_empty() {
                return Err(error("`command` is empty".into()));
            }
            let timeout_secs = entry.timeout_secs.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS);
            if !(1..=MAX_HOOK_TIMEOUT_SECS).contains(&timeout_secs) {
                return Err(error(format!(
                    "`timeout_secs` must be 1 to {MAX_HOOK_TIMEOUT_SECS}, got {timeout_secs}"
                )));
            }
            let matcher = match entry.matcher.as_deref().map(str::trim) {
                None | Some("") | Some("*") => None,
                Some(pattern) => {
                    Some(regex::Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
                        error(format!("`matcher` is not a regular expression: {e}"))
                    })?)
                }
            };
            checked.push(CheckedHook {
                event,
                matcher,
                matcher_text: entry.matcher.clone(),
                command: entry.command.clone(),
                timeout_secs,
            });
        }
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(toml_text: &str) -> HooksTable {
        toml::from_str::<ProjectHooksFile>(toml_text).unwrap().hooks
    }

    #[test]
    fn a_matcher_matches_the_whole_tool_name() {
        let hooks = check_hooks(&table(
            "[[hooks.PreToolUse]]\nmatcher = \"run_command|write_file\"\ncommand = \"true\"\n",
        ))
        .unwrap();
        assert!(hooks[0].matches(Some("run_command")));
        assert!(hooks[0].matches(Some("write_file")));
        assert!(!hooks[0].matches(Some("run_command_x")));
        assert!(!hooks[0].matches(Some("read_file")));
        assert_eq!(hooks[0].timeout_secs, DEFAULT_HOOK_TIMEOUT_SECS);
    }

    #[test]
    fn no_matcher_or_a_star_matches_everything() {
        let hooks = check_hooks(&table(
            "[[hooks.PostToolUse]]\ncommand = \"a\"\n[[hooks.PostToolUse]]\nmatcher = \"*\"\ncommand = \"b\"\n",
        ))
        .unwrap();
        assert!(hooks.iter().all(|h| h.matches(Some("anything"))));
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        let unknown = check_hooks(&table("[[hooks.PreTool]]\ncommand = \"x\"\n")).unwrap_err();
        assert!(unknown
            .to_string()
            .contains("hooks.PreTool: unknown hook event"));
        let regex = check_hooks(&table(
            "[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"x\"\n",
        ))
        .unwrap_err();
        assert!(regex
            .to_string()
            .starts_with("hooks.PreToolUse[0]: `matcher`"));
        let timeout = check_hooks(&table(
            "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_secs = 0\n",
        ))
        .unwrap_err();
        assert!(timeout.to_string().contains("timeout_secs"));
        let empty = check_hooks(&table("[[hooks.Stop]]\ncommand = \" \"\n")).unwrap_err();
        assert!(empty.to_string().contains("empty"));
    }

    #[test]
    fn a_project_file_holds_hooks_and_nothing_else() {
        let granting = "approval = \"all\"\n[profiles.default]\nsandbox = \"off\"\n";
        let error = toml::from_str::<ProjectHooksFile>(granting).unwrap_err();
        assert!(error.to_string().contains("unknown field"), "{error}");
    }
}
