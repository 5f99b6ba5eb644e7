//! Turning streamed tool-call pieces into kernel `ToolCall`s, shared by the
//! three protocols.

use crate::ProviderError;
use bearagent_kernel::{StopReason, TokenUsage, ToolCall};
use serde_json::{Map, Value};

/// A tool call whose id, name and argument text have arrived (the text may
/// still be incomplete if the stream stopped inside it).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PendingCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl PendingCall {
    /// Parses the argument text: empty means `{}` (a tool without
    /// parameters); otherwise it must be one JSON object.
    pub fn build(&self) -> Result<ToolCall, String> {
        let arguments = parse_arguments(&self.arguments)?;
        ToolCall::new(self.id.clone(), self.name.clone(), arguments).map_err(|e| {
            format!(
                "tool call {:?} ({:?}) is invalid: {e}",
                self.id.chars().take(64).collect::<String>(),
                self.name.chars().take(64).collect::<String>()
            )
        })
    }
}

pub(crate) fn parse_arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(_) => Err("tool call arguments are not a JSON object".into()),
        Err(e) => Err(format!("tool call arguments are not valid JSON: {e}")),
    }
}

/// Pushes the completed calls and the one `Completed` item. A call that does
/// not parse is invalid model output, except after a `max_tokens` stop,
/// where it was cut off and is dropped (never executed).
pub(crate) fn finish<'a>(
    calls: impl IntoIterator<Item = &'a PendingCall>,
    usage: TokenUsage,
    stop_reason: StopReason,
    out: &mut Vec<crate::StreamItem>,
) -> Result<(), ProviderError> {
    for call in calls {
        match call.build() {
            Ok(call) => out.push(crate::StreamItem::ToolCall(call)),
            Err(_) if stop_reason == StopReason::MaxTokens => {}
            Err(message) => return Err(ProviderError::InvalidOutput { message, usage }),
        }
    }
    out.push(crate::StreamItem::Completed { usage, stop_reason });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(args: &str) -> PendingCall {
        PendingCall {
            id: "c1".into(),
            name: "t".into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn arguments_parse_strictly() {
        assert_eq!(call("").build().unwrap().arguments, Map::new());
        assert_eq!(
            Value::Object(call(r#"{"a":1}"#).build().unwrap().arguments),
            json!({"a": 1})
        );
        assert!(call("[1]").build().is_err());
        assert!(call(r#"{"a":"#).build().is_err());
        assert!(PendingCall::default().build().is_err());
    }

    #[test]
    fn cut_off_calls_are_dropped_only_at_max_tokens() {
        let usage = TokenUsage::new(3, 4);
        let mut out = Vec::new();
        finish([&call("{")], usage, StopReason::MaxTokens, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        let err = finish([&call("{")], usage, StopReason::ToolUse, &mut Vec::new()).unwrap_err();
        assert_eq!(err.usage(), usage);
    }
}
