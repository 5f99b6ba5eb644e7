//! What a script says of one model turn: its text, its calls or answer,
//! the failure it stands for. Below the provider and the player, which both
//! read it.

use bearagent_kernel::TokenUsage;
use serde::Deserialize;
use serde_json::Value;

/// One scripted model turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// Text streamed before the action (narration, or the final answer).
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_call: Option<ScriptToolCall>,
    /// Several calls in one turn (they run in order).
    #[serde(default)]
    pub tool_calls: Option<Vec<ScriptToolCall>>,
    #[serde(default)]
    pub final_answer: Option<String>,
    /// A raw reply parsed strictly as JSON-text mode would.
    #[serde(default)]
    pub raw_text: Option<String>,
    #[serde(default)]
    pub error: Option<ScriptFailure>,
    #[serde(default)]
    pub usage: Option<TokenUsage>,
    /// End the stream without a completion (a broken connection).
    #[serde(default)]
    pub truncate: bool,
    /// Wait this long before answering (a slow model).
    #[serde(default)]
    pub delay_ms: u64,
    /// Played instead of this step when the last thing the model saw was an
    /// error result (a denial, a refused path), so a script can recover.
    #[serde(default)]
    pub after_error: Option<Box<ScriptStep>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptToolCall {
    #[serde(default)]
    pub call_id: Option<String>,
    pub tool_name: String,
    pub arguments: Value,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptFailure {
    pub message: String,
    #[serde(default)]
    pub retryable: bool,
}
