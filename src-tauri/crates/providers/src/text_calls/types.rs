//! What the search finds: calls, or why call-shaped text is not one.

use bearagent_kernel::TextCallDialect;
use serde_json::{Map, Value};

/// One call found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    pub name: String,
    pub arguments: Map<String, Value>,
    pub dialect: TextCallDialect,
}

/// Why text that looks like a tool call cannot be taken as one; the
/// message is what the model is told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextCallError {
    #[error("the tool call names `{name}`, which is not a tool; the tools are: {known}")]
    UnknownTool { name: String, known: String },
    #[error("the tool call is not valid JSON: {detail}")]
    NotJson { detail: String },
    #[error("the arguments of `{name}` must be a JSON object, got {got}")]
    ArgumentsNotObject { name: String, got: String },
    #[error("the tool call names no tool; the tools are: {known}")]
    NoName { known: String },
}

/// What the reply's text holds.
#[derive(Debug, Clone, PartialEq)]
pub enum TextCalls {
    /// Nothing call-shaped: a plain answer.
    None,
    /// The calls the model meant, in the order written.
    Calls(Vec<TextCall>),
    /// It looks like a tool call but cannot be taken as one.
    Invalid {
        dialect: TextCallDialect,
        error: TextCallError,
    },
}

/// What one dialect found: a call, or why a call-shaped piece is invalid.
pub(super) type Found = Result<TextCall, (TextCallDialect, TextCallError)>;
