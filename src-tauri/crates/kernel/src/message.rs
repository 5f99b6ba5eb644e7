//! Conversation items: messages, tool calls, tool results and the final
//! answer. Constructors enforce the invariants that hold for one item alone;
//! rules across items live in `history`.

use crate::ids::{CallId, IdError, ToolName};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error(transparent)]
    Id(#[from] IdError),
    #[error("tool call arguments must be a JSON object, got {found}")]
    ArgumentsNotObject { found: &'static str },
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
}

/// A tool invocation proposed by the model. It executes nothing by itself.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCall {
    pub call_id: CallId,
    pub tool_name: ToolName,
    pub arguments: Map<String, Value>,
}

impl ToolCall {
    pub fn new(
        call_id: impl Into<String>,
        tool_name: impl Into<String>,
        arguments: Value,
    ) -> Result<Self, MessageError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => {
                return Err(MessageError::ArgumentsNotObject {
                    found: json_kind(&other),
                })
            }
        };
        Ok(Self {
            call_id: CallId::new(call_id)?,
            tool_name: ToolName::new(tool_name)?,
            arguments,
        })
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Deserialize)]
struct RawToolCall {
    call_id: String,
    tool_name: String,
    arguments: Value,
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawToolCall::deserialize(d)?;
        ToolCall::new(raw.call_id, raw.tool_name, raw.arguments).map_err(serde::de::Error::custom)
    }
}

/// The outcome of a tool call, as the model will see it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub call_id: CallId,
    pub content: String,
    pub is_error: bool,
}

impl ToolResult {
    pub fn new(
        call_id: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Result<Self, MessageError> {
        Ok(Self {
            call_id: CallId::new(call_id)?,
            content: content.into(),
            is_error,
        })
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalAnswer {
    pub content: String,
}

/// What a model proposes in one turn.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    ToolCall(ToolCall),
    FinalAnswer(FinalAnswer),
}

/// One item of the conversation history sent to a model.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HistoryItem {
    Message(Message),
    ToolCall(ToolCall),
    ToolResult(ToolResult),
}

pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_call_requires_object_arguments() {
        assert_eq!(
            ToolCall::new("c1", "read_file", json!(["a"])),
            Err(MessageError::ArgumentsNotObject { found: "an array" })
        );
        assert!(ToolCall::new("c1", "read_file", json!({"path": "a"})).is_ok());
    }

    #[test]
    fn tool_call_rejects_blank_ids_and_names() {
        assert!(matches!(
            ToolCall::new(" ", "read_file", json!({})),
            Err(MessageError::Id(IdError::Blank { kind: "call id" }))
        ));
        assert!(matches!(
            ToolCall::new("c1", "", json!({})),
            Err(MessageError::Id(IdError::Blank { kind: "tool name" }))
        ));
        assert!(ToolResult::new("", "x", false).is_err());
    }

    #[test]
    fn deserialising_enforces_the_same_invariants() {
        let bad = json!({"call_id": "c1", "tool_name": "t", "arguments": "x"});
        assert!(serde_json::from_value::<ToolCall>(bad).is_err());
        let good = json!({"type": "tool_call", "call_id": "c1", "tool_name": "t", "arguments": {}});
        let action: Action = serde_json::from_value(good).unwrap();
        assert!(matches!(action, Action::ToolCall(_)));
    }
}
