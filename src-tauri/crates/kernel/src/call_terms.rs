//! The small terms events use about model and tool calls: why a model
//! turn stopped, how a model call failed, an approval's scope, what a
//! write did and how a write was verified.

use crate::ids::ContentHash;
use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    Other,
}

/// Classified model failures (provider differences stop at the adapter).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelErrorClass {
    /// Transport, HTTP status, overload: the provider failed.
    Provider { retryable: bool },
    /// The model answered with something that is not a valid action.
    InvalidOutput,
    /// A scripted provider ran out of outcomes: a test bug.
    ScriptExhausted,
    /// The stream ended before its terminal event.
    TruncatedStream,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This one call only.
    Once,
    /// Every call of this tool for the rest of the run.
    ToolForRun,
    /// This call and the calls after it in the same model turn ("deny the
    /// rest": none of them is asked about again).
    RestOfTurn,
}

/// What a side-effecting tool did, or meant to do.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub path: String,
    pub before_hash: Option<ContentHash>,
    pub after_hash: Option<ContentHash>,
    pub bytes_written: u64,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectOutcome {
    Applied,
    NotApplied,
}
