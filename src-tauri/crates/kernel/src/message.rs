//! Conversation items: messages, tool calls, tool results and the final
//! answer. Constructors enforce the invariants that hold for one item alone;
//! rules across items live in `history`.

use crate::ids::{CallId, IdError, ToolName};
use crate::image::ImageRef;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error(transparent)]
    Id(#[from] IdError),
    #[error("tool call arguments must be a JSON object, got {found}")]
    ArgumentsNotObject { found: &'static str },
    #[error("a turn must carry at least one tool call or be a final answer")]
    NoCalls,
    #[error("call id {0} appears more than once in one turn")]
    DuplicateCallId(String),
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
    /// Images that go with the text (a goal's screenshots), as blob refs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageRef>,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            images: Vec::new(),
        }
    }

    pub fn with_images(mut self, images: Vec<ImageRef>) -> Self {
        self.images = images;
        self
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
    /// Images the tool returned (an MCP screenshot), as blob refs; the
    /// text still describes each, for models that cannot see.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageRef>,
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
            images: Vec::new(),
        })
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalAnswer {
    pub content: String,
}

/// What a model proposes in one turn: one or more tool calls (run in
/// order, each through the whole tool path), or a final answer. The text
/// the model wrote beside its calls travels with the completion.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    ToolCalls { calls: Vec<ToolCall> },
    FinalAnswer(FinalAnswer),
}

impl Action {
    /// A turn of calls: at least one, call ids unique within the turn.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Result<Action, MessageError> {
        if calls.is_empty() {
            return Err(MessageError::NoCalls);
        }
        let mut seen = std::collections::BTreeSet::new();
        for call in &calls {
            if !seen.insert(call.call_id.as_str()) {
                return Err(MessageError::DuplicateCallId(call.call_id.to_string()));
            }
        }
        Ok(Action::ToolCalls { calls })
    }

    /// A turn of one call.
    pub fn one_call(call: ToolCall) -> Action {
        Action::ToolCalls { calls: vec![call] }
    }

    /// The calls of the turn, in order (none for a final answer).
    pub fn calls(&self) -> &[ToolCall] {
        match self {
            Action::ToolCalls { calls } => calls,
            Action::FinalAnswer(_) => &[],
        }
    }
}

/// What is stored: today's shape, and the one-call shape events written
/// before turns could carry several calls (`{"type":"tool_call", ...}`).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ActionWire {
    ToolCalls { calls: Vec<ToolCall> },
    ToolCall(ToolCall),
    FinalAnswer(FinalAnswer),
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Action::try_from(ActionWire::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<ActionWire> for Action {
    type Error = MessageError;

    fn try_from(wire: ActionWire) -> Result<Self, Self::Error> {
        match wire {
            ActionWire::ToolCalls { calls } => Action::tool_calls(calls),
            ActionWire::ToolCall(call) => Ok(Action::one_call(call)),
            ActionWire::FinalAnswer(answer) => Ok(Action::FinalAnswer(answer)),
        }
    }
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

/// What kind of JSON value this is, as an error message names it ("a string").
pub fn json_kind(value: &Value) -> &'static str {
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
        let legacy =
            json!({"type": "tool_call", "call_id": "c1", "tool_name": "t", "arguments": {}});
        let action: Action = serde_json::from_value(legacy).unwrap();
        assert_eq!(action.calls().len(), 1);
        // Written back in today's shape, read back the same.
        let now = serde_json::to_value(&action).unwrap();
        assert_eq!(now["type"], "tool_calls");
        assert_eq!(serde_json::from_value::<Action>(now).unwrap(), action);
    }

    #[test]
    fn a_turn_of_calls_is_non_empty_with_unique_ids() {
        let a = ToolCall::new("c1", "read_file", json!({})).unwrap();
        let b = ToolCall::new("c2", "list_dir", json!({})).unwrap();
        assert_eq!(Action::tool_calls(vec![]), Err(MessageError::NoCalls));
        assert_eq!(
            Action::tool_calls(vec![a.clone(), a.clone()]),
            Err(MessageError::DuplicateCallId("c1".into()))
        );
        assert_eq!(Action::tool_calls(vec![a, b]).unwrap().calls().len(), 2);
        let dup = json!({"type": "tool_calls", "calls": [
            {"call_id": "x", "tool_name": "t", "arguments": {}},
            {"call_id": "x", "tool_name": "t", "arguments": {}}
        ]});
        assert!(serde_json::from_value::<Action>(dup).is_err());
        let none = json!({"type": "tool_calls", "calls": []});
        assert!(serde_json::from_value::<Action>(none).is_err());
    }
}
