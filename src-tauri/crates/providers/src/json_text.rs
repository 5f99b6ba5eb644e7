//! JSON-text mode, for models without native tool calling: history is
//! encoded as plain messages and the reply is parsed strictly into an
//! action. Anything but an exact, well-typed object is invalid output.

use bearagent_kernel::{Action, FinalAnswer, HistoryItem, Message, Role, ToolCall};
use serde_json::{json, Map, Value};

/// History as plain messages: tool calls become assistant JSON, tool
/// results user JSON, with `call_id` preserved.
pub fn encode_history(history: &[HistoryItem]) -> Vec<Message> {
    history
        .iter()
        .map(|item| match item {
            HistoryItem::Message(m) => m.clone(),
            HistoryItem::ToolCall(c) => Message::new(
                Role::Assistant,
                json!({
                    "type": "tool_call",
                    "call_id": c.call_id,
                    "tool_name": c.tool_name,
                    "arguments": c.arguments,
                })
                .to_string(),
            ),
            HistoryItem::ToolResult(r) => Message::new(
                Role::User,
                json!({
                    "type": "tool_result",
                    "call_id": r.call_id,
                    "content": r.content,
                    "is_error": r.is_error,
                })
                .to_string(),
            ),
        })
        .collect()
}

/// The instructions that tell a model how to answer in JSON-text mode.
pub const PROTOCOL_INSTRUCTIONS: &str = "Reply with exactly one JSON object and nothing else. \
To call a tool: {\"type\":\"tool_call\",\"call_id\":\"<unique id>\",\"tool_name\":\"<name>\",\"arguments\":{...}}. \
To finish: {\"type\":\"final_answer\",\"content\":\"<answer>\"}.";

fn take_string(obj: &Map<String, Value>, field: &str) -> Result<String, String> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("field {field:?} must be a string")),
        None => Err(format!("field {field:?} is missing")),
    }
}

fn exact_fields(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    let mut extra: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !allowed.contains(k))
        .collect();
    extra.sort_unstable();
    if extra.is_empty() {
        Ok(())
    } else {
        Err(format!("unexpected field(s): {}", extra.join(", ")))
    }
}

/// Parses a reply strictly. The error text is what the model will be told.
/// One action object in a ```json fence, or with prose around it, is that
/// action: small models wrap it so, and the object is what they meant.
pub fn parse_reply(text: &str) -> Result<Action, String> {
    let value: Value = match serde_json::from_str(text.trim()) {
        Ok(value) => value,
        Err(e) => the_one_object(text).ok_or(format!("the reply is not valid JSON: {e}"))?,
    };
    let Value::Object(obj) = value else {
        return Err("the reply must be a JSON object".into());
    };
    let kind = take_string(&obj, "type")?;
    match kind.as_str() {
        "tool_call" => {
            exact_fields(&obj, &["type", "call_id", "tool_name", "arguments"])?;
            let call_id = take_string(&obj, "call_id")?;
            let tool_name = take_string(&obj, "tool_name")?;
            let arguments = obj
                .get("arguments")
                .cloned()
                .ok_or_else(|| "field \"arguments\" is missing".to_string())?;
            ToolCall::new(call_id, tool_name, arguments)
                .map(Action::one_call)
                .map_err(|e| e.to_string())
        }
        "final_answer" => {
            exact_fields(&obj, &["type", "content"])?;
            Ok(Action::FinalAnswer(FinalAnswer {
                content: take_string(&obj, "content")?,
            }))
        }
        other => Err(format!(
            "\"type\" must be \"tool_call\" or \"final_answer\", got {other:?}"
        )),
    }
}

/// The reply's only JSON object with a `type`, wherever it stands (in a
/// fence, after a sentence); None when there is none or more than one.
fn the_one_object(text: &str) -> Option<Value> {
    let mut found = None;
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value @ Value::Object(_))) if value.get("type").is_some() => {
                if found.replace(value).is_some() {
                    return None;
                }
                at = start + stream.byte_offset().max(1);
            }
            Some(Ok(_)) => at = start + stream.byte_offset().max(1),
            _ => at = start + 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::ToolResult;

    #[test]
    fn history_is_encoded_with_call_ids_preserved() {
        let call = ToolCall::new("call_7", "read_file", json!({"path": "a.md"})).unwrap();
        let history = vec![
            HistoryItem::Message(Message::new(Role::User, "goal")),
            HistoryItem::ToolCall(call),
            HistoryItem::ToolResult(ToolResult::new("call_7", "text", false).unwrap()),
        ];
        let msgs = encode_history(&history);
        assert_eq!(msgs[0], Message::new(Role::User, "goal"));
        assert_eq!(msgs[1].role, Role::Assistant);
        let call: Value = serde_json::from_str(&msgs[1].content).unwrap();
        assert_eq!(
            call,
            json!({"type":"tool_call","call_id":"call_7","tool_name":"read_file","arguments":{"path":"a.md"}})
        );
        assert_eq!(msgs[2].role, Role::User);
        let result: Value = serde_json::from_str(&msgs[2].content).unwrap();
        assert_eq!(
            result,
            json!({"type":"tool_result","call_id":"call_7","content":"text","is_error":false})
        );
    }

    #[test]
    fn valid_replies_parse() {
        let a = parse_reply(
            r#" {"type":"tool_call","call_id":"c1","tool_name":"read_file","arguments":{"path":"x"}} "#,
        )
        .unwrap();
        assert!(matches!(a.calls(), [c] if c.tool_name.as_str() == "read_file"));
        let a = parse_reply(r#"{"type":"final_answer","content":"42"}"#).unwrap();
        assert_eq!(
            a,
            Action::FinalAnswer(FinalAnswer {
                content: "42".into()
            })
        );
    }

    #[test]
    fn an_action_in_a_fence_or_among_prose_is_that_action() {
        // What a 1.5B model answered in JSON-text mode, and lost runs to.
        let fenced = "```json\n{\"type\": \"tool_call\", \"call_id\": \"c1\", \"tool_name\": \"read_file\", \"arguments\": {\"path\": \"question.txt\"}}\n```";
        let a = parse_reply(fenced).unwrap();
        assert!(matches!(a.calls(), [c] if c.arguments["path"] == "question.txt"));
        let prose = "I will answer now.\n{\"type\": \"final_answer\", \"content\": \"42\"}\nDone.";
        let a = parse_reply(prose).unwrap();
        assert_eq!(
            a,
            Action::FinalAnswer(FinalAnswer {
                content: "42".into()
            })
        );
        // Still strict inside: a fenced object with a wrong field is refused.
        let err =
            parse_reply("```json\n{\"type\":\"final_answer\",\"content\":\"x\",\"mood\":1}\n```")
                .unwrap_err();
        assert!(err.contains("unexpected field(s): mood"), "{err}");
        // Two actions are not one.
        let two = "{\"type\":\"final_answer\",\"content\":\"a\"} {\"type\":\"final_answer\",\"content\":\"b\"}";
        assert!(parse_reply(two).unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn anything_else_is_rejected_with_a_reason() {
        let cases = [
            ("not json", "not valid JSON"),
            ("[1,2]", "must be a JSON object"),
            (
                r#"{"type":"shout"}"#,
                "must be \"tool_call\" or \"final_answer\"",
            ),
            (r#"{"type":"final_answer"}"#, "\"content\" is missing"),
            (r#"{"type":"final_answer","content":1}"#, "must be a string"),
            (
                r#"{"type":"final_answer","content":"x","mood":"ok"}"#,
                "unexpected field(s): mood",
            ),
            (
                r#"{"type":"tool_call","call_id":"c","tool_name":"t","arguments":[]}"#,
                "must be a JSON object",
            ),
            (
                r#"{"type":"tool_call","call_id":"","tool_name":"t","arguments":{}}"#,
                "call id must not be blank",
            ),
            (
                r#"{"type":"tool_call","call_id":"c","tool_name":"t"}"#,
                "\"arguments\" is missing",
            ),
            (r#"{"type":1}"#, "\"type\" must be a string"),
        ];
        for (input, expected) in cases {
            let err = parse_reply(input).unwrap_err();
            assert!(err.contains(expected), "{input}: {err}");
        }
    }

    #[test]
    fn business_rules_of_arguments_are_not_the_parsers_job() {
        // A wrong-typed path is for the tool to reject, not the parser.
        assert!(parse_reply(
            r#"{"type":"tool_call","call_id":"c","tool_name":"read_file","arguments":{"path":42}}"#
        )
        .is_ok());
    }
}
