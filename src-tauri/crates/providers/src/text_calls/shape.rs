//! A decoded JSON object turned into a call, the same way for every
//! dialect: where the name and the arguments may sit in the shapes models
//! print, and whether the name is a tool.

use super::types::{Found, TextCall, TextCallError};
use crate::ToolSchema;
use bearagent_kernel::TextCallDialect;
use serde_json::{Map, Value};

/// Keys a call's tool name is found under.
const NAME_KEYS: [&str; 4] = ["name", "tool_name", "tool", "function"];
/// Keys a call's arguments are found under.
const ARGS_KEYS: [&str; 5] = ["arguments", "parameters", "args", "input", "tool_input"];
/// Keys beside the name that do not make an object something else.
const BESIDE_NAME: [&str; 3] = ["type", "id", "call_id"];

/// The tools the model was offered.
pub(super) struct Known<'a> {
    tools: &'a [ToolSchema],
}

impl<'a> Known<'a> {
    pub(super) fn new(tools: &'a [ToolSchema]) -> Self {
        Self { tools }
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// "a, b, c": what the model is told when it names another tool.
    pub(super) fn list(&self) -> String {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        names.join(", ")
    }

    /// The JSON Schema type of a tool's parameter, if it says one.
    pub(super) fn param_type(&self, tool: &str, param: &str) -> Option<&str> {
        let schema = self.tools.iter().find(|t| t.name == tool)?;
        schema
            .parameters
            .get("properties")?
            .get(param)?
            .get("type")?
            .as_str()
    }

    pub(super) fn unknown(&self, name: &str) -> TextCallError {
        TextCallError::UnknownTool {
            name: name.to_owned(),
            known: self.list(),
        }
    }
}

/// How sure the text is meant as a call.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrapper {
    /// Explicit tool-call syntax (or the whole reply is the object): an
    /// unknown name is invalid, flat arguments are taken.
    Explicit,
    /// The whole reply is one call-shaped object (name and arguments): an
    /// unknown name is invalid, anything else call-shaped is not a call.
    Whole,
    /// JSON in prose or a fence: a call only when it names a tool.
    Implicit,
}

/// Each call in a decoded value (an object, or an array of objects).
pub(super) fn calls_in(
    value: &Value,
    known: &Known,
    wrapper: Wrapper,
    dialect: TextCallDialect,
) -> Vec<Found> {
    match value {
        Value::Object(obj) => call_of(obj, known, wrapper, dialect).into_iter().collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|obj| call_of(obj, known, wrapper, dialect))
            .collect(),
        _ if wrapper == Wrapper::Explicit => vec![Err((
            dialect,
            TextCallError::NotJson {
                detail: "expected an object with the tool's name and arguments".into(),
            },
        ))],
        _ => Vec::new(),
    }
}

/// The call an object is, None when it is not call-shaped (implicit only).
pub(super) fn call_of(
    obj: &Map<String, Value>,
    known: &Known,
    wrapper: Wrapper,
    dialect: TextCallDialect,
) -> Option<Found> {
    // {"type": "function", "function": {"name": …, "arguments": …}} and
    // {"tool_calls": [...]} / {"function_call": {...}} wrap the call.
    for key in ["function", "function_call"] {
        if let Some(Value::Object(inner)) = obj.get(key) {
            return call_of(inner, known, wrapper, dialect);
        }
    }
    if let Some(Value::Array(calls)) = obj.get("tool_calls") {
        let first = calls.iter().find_map(Value::as_object)?;
        return call_of(first, known, wrapper, dialect);
    }
    let explicit = wrapper == Wrapper::Explicit;
    let name = NAME_KEYS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str));
    let Some(name) = name.map(str::trim) else {
        let no_name = TextCallError::NoName {
            known: known.list(),
        };
        return explicit.then_some(Err((dialect, no_name)));
    };
    let args_key = ARGS_KEYS.iter().find(|k| obj.contains_key(**k));
    let only_name = obj
        .keys()
        .all(|k| NAME_KEYS.contains(&k.as_str()) || BESIDE_NAME.contains(&k.as_str()));
    // A tool's schema shown in prose (`"parameters": {"type": "object",
    // "properties": …}`) names a tool too, but calls nothing.
    let schema = args_key.is_some_and(|k| obj[*k].get("properties").is_some_and(Value::is_object));
    let call_shaped = (args_key.is_some() || only_name) && !schema;
    let taken = match wrapper {
        Wrapper::Explicit => true,
        Wrapper::Whole => args_key.is_some() || only_name && known.has(name),
        Wrapper::Implicit => call_shaped && known.has(name),
    };
    if !taken {
        return None;
    }
    if !known.has(name) {
        return Some(Err((dialect, known.unknown(name))));
    }
    let arguments = match args_key {
        Some(key) => arguments_of(name, &obj[*key]),
        // Explicit syntax with the arguments beside the name.
        None => Ok(flat_arguments(obj)),
    };
    Some(
        arguments
            .map(|arguments| TextCall {
                name: name.to_owned(),
                arguments,
                dialect,
            })
            .map_err(|e| (dialect, e)),
    )
}

/// The arguments as an object: one already, or a JSON string of one.
pub(super) fn arguments_of(name: &str, value: &Value) -> Result<Map<String, Value>, TextCallError> {
    let not_object = |got: &Value| TextCallError::ArgumentsNotObject {
        name: name.to_owned(),
        got: describe(got),
    };
    match value {
        Value::Object(args) => Ok(args.clone()),
        Value::Null => Ok(Map::new()),
        Value::String(s) if s.trim().is_empty() => Ok(Map::new()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(args)) => Ok(args),
            Ok(other) => Err(not_object(&other)),
            Err(e) => Err(TextCallError::NotJson {
                detail: format!("the arguments of `{name}` are a string that is not JSON ({e})"),
            }),
        },
        other => Err(not_object(other)),
    }
}

fn flat_arguments(obj: &Map<String, Value>) -> Map<String, Value> {
    obj.iter()
        .filter(|(k, _)| !NAME_KEYS.contains(&k.as_str()) && !BESIDE_NAME.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// "an array", "the number 3": what the model wrote instead of an object.
fn describe(value: &Value) -> String {
    match value {
        Value::Array(_) => "an array".into(),
        Value::String(_) => "a string".into(),
        Value::Number(n) => format!("the number {n}"),
        Value::Bool(b) => format!("{b}"),
        Value::Null => "null".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// The first JSON value at the start of `text` (after whitespace) and
/// the bytes it took; trailing text is not this value's concern.
pub(super) fn first_value(text: &str) -> Result<(Value, usize), serde_json::Error> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => Ok((value, stream.byte_offset())),
        Some(Err(e)) => Err(e),
        None => serde_json::from_str::<Value>("").map(|v| (v, 0)),
    }
}

/// The JSON of an explicit wrapper's body: its calls, or why not JSON.
pub(super) fn explicit_body(body: &str, known: &Known, dialect: TextCallDialect) -> Vec<Found> {
    let body = strip_fence(body.trim());
    match first_value(body) {
        Ok((value, _)) => calls_in(&value, known, Wrapper::Explicit, dialect),
        Err(e) => vec![Err((
            dialect,
            TextCallError::NotJson {
                detail: e.to_string(),
            },
        ))],
    }
}

/// A body that is itself fenced (```json … ```) without its fence.
fn strip_fence(body: &str) -> &str {
    let Some(rest) = body.strip_prefix("```") else {
        return body;
    };
    let rest = rest.split_once('\n').map_or("", |(_, r)| r);
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

/// The object at `text`'s start begins with a name key naming a known
/// tool: unparseable JSON there is a broken call, not prose.
pub(super) fn names_known_tool(text: &str, known: &Known) -> Option<String> {
    let rest = text.trim_start().strip_prefix('{')?.trim_start();
    let rest = NAME_KEYS
        .iter()
        .find_map(|k| rest.strip_prefix(&format!("\"{k}\"")))?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let name = &rest[..rest.find('"')?];
    known.has(name).then(|| name.to_owned())
}
