//! Run settings that are facts of a run (recorded in `RunCreated`), so a
//! run can be understood, rebuilt and resumed from its events alone.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// How much the user wants to be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Ask before every tool call.
    AskAll,
    /// Reads run without asking; writes are asked.
    AskWrites,
    /// Everything runs without asking (the hard denials still apply).
    AllowAll,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval mode {value:?}; expected \"ask\", \"reads\" or \"all\"")]
pub struct ParseApprovalModeError {
    pub value: String,
}

impl ApprovalMode {
    /// The config file's spelling: `ask`, `reads`, `all`.
    pub fn config_name(self) -> &'static str {
        match self {
            ApprovalMode::AskAll => "ask",
            ApprovalMode::AskWrites => "reads",
            ApprovalMode::AllowAll => "all",
        }
    }
}

impl FromStr for ApprovalMode {
    type Err = ParseApprovalModeError;

    /// `ask` (= AskAll), `reads` (= AskWrites: reads allowed, writes asked),
    /// `all` (= AllowAll); the snake_case names are accepted too.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ask" | "ask_all" => Ok(ApprovalMode::AskAll),
            "reads" | "ask_writes" => Ok(ApprovalMode::AskWrites),
            "all" | "allow_all" => Ok(ApprovalMode::AllowAll),
            _ => Err(ParseApprovalModeError { value: s.into() }),
        }
    }
}

/// Limits on what each model request may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ContextCaps {
    /// Total bytes of history sent in one request.
    pub max_context_bytes: u32,
    /// A tool result larger than this enters context as head + tail.
    pub max_tool_result_bytes: u32,
    /// Compact when the next request would pass this share of the model's
    /// window, in per mille (850 = 0.85); None: never compact — the run
    /// fails clearly when the window is exceeded.
    #[serde(default = "default_compact_at")]
    pub compact_at_permille: Option<u16>,
}

/// 0.85 of the window.
pub const DEFAULT_COMPACT_AT_PERMILLE: u16 = 850;

fn default_compact_at() -> Option<u16> {
    Some(DEFAULT_COMPACT_AT_PERMILLE)
}

impl Default for ContextCaps {
    fn default() -> Self {
        Self {
            max_context_bytes: 400_000,
            max_tool_result_bytes: 16_384,
            compact_at_permille: default_compact_at(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_modes_parse_from_cli_words_and_names() {
        assert_eq!("ask".parse(), Ok(ApprovalMode::AskAll));
        assert_eq!("reads".parse(), Ok(ApprovalMode::AskWrites));
        for mode in [
            ApprovalMode::AskAll,
            ApprovalMode::AskWrites,
            ApprovalMode::AllowAll,
        ] {
            assert_eq!(mode.config_name().parse(), Ok(mode));
        }
        assert_eq!(" ALL ".parse(), Ok(ApprovalMode::AllowAll));
        assert_eq!("allow_all".parse(), Ok(ApprovalMode::AllowAll));
        assert!("sometimes".parse::<ApprovalMode>().is_err());
    }
}
