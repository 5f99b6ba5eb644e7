//! Ollama's own chat API (`POST /api/chat`): the request body, with this
//! API's wire types. Spoken instead of Ollama's OpenAI-compatible API
//! because only this one takes `options.num_ctx`: without it Ollama runs
//! every model with its small default window and silently drops the
//! start of the prompt — the system prompt and the tool schemas.

use super::body::BodySettings;
use bearagent_kernel::{HistoryItem, ImageRef, Role};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<Message>,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    options: Options,
}

/// Runtime options: the window to load the model with and the output cap.
#[derive(Serialize)]
struct Options {
    num_ctx: u64,
    num_predict: u32,
}

#[derive(Serialize)]
struct Message {
    role: &'static str,
    content: String,
    /// Base64, no `data:` prefix.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<Call>,
    /// On a tool result: which tool answered (Ollama's templates read the
    /// name; newer versions also match `tool_call_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
}

#[derive(Serialize)]
struct Call {
    id: String,
    function: CallFunction,
}

#[derive(Serialize)]
struct CallFunction {
    name: String,
    /// A JSON object, not JSON text as in the OpenAI format.
    arguments: Map<String, Value>,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ToolFunction<'a>,
}

#[derive(Serialize)]
struct ToolFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

fn message(role: &'static str, content: String) -> Message {
    Message {
        role,
        content,
        images: Vec::new(),
        tool_calls: Vec::new(),
        tool_name: None,
        tool_call_id: None,
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// A message's images as base64; an image whose bytes were not attached
/// (a runtime bug, never silent) becomes a line of the text instead.
fn attach(request: &crate::ModelRequest, wire: &mut Message, images: &[ImageRef]) {
    for image in images {
        match request.base64_of(image) {
            Some(data) => wire.images.push(data),
            None => {
                wire.content.push('\n');
                wire.content.push_str(&super::images::missing(image));
            }
        }
    }
}

/// Narration and the calls of one turn are one assistant message.
fn push_call(messages: &mut Vec<Message>, call: &bearagent_kernel::ToolCall) {
    let wire = Call {
        id: call.call_id.as_str().to_owned(),
        function: CallFunction {
            name: call.tool_name.as_str().to_owned(),
            arguments: call.arguments.clone(),
        },
    };
    match messages.last_mut() {
        Some(last) if last.role == "assistant" => last.tool_calls.push(wire),
        _ => {
            let mut m = message("assistant", String::new());
            m.tool_calls.push(wire);
            messages.push(m);
        }
    }
}

/// The history as chat messages. A tool result's images follow its turn's
/// tool messages as one user message, as in the OpenAI format.
fn history_messages(request: &crate::ModelRequest) -> Vec<Message> {
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut messages: Vec<Message> = Vec::new();
    let mut tool_images: Option<Message> = None;
    for item in request.history.iter() {
        if !matches!(item, HistoryItem::ToolResult(_)) {
            messages.extend(tool_images.take());
        }
        match item {
            HistoryItem::Message(m) => {
                let mut wire = message(role(m.role), m.content.clone());
                attach(request, &mut wire, &m.images);
                messages.push(wire);
            }
            HistoryItem::ToolCall(call) => {
                names.insert(call.call_id.as_str(), call.tool_name.as_str());
                push_call(&mut messages, call);
            }
            HistoryItem::ToolResult(result) => {
                let id = result.call_id.as_str();
                let mut wire = message("tool", result.content.clone());
                wire.tool_name = names.get(id).map(|n| (*n).to_owned());
                wire.tool_call_id = Some(id.to_owned());
                messages.push(wire);
                if !result.images.is_empty() {
                    let images = tool_images.get_or_insert_with(|| message("user", String::new()));
                    if !images.content.is_empty() {
                        images.content.push('\n');
                    }
                    images
                        .content
                        .push_str(&format!("Images returned by tool call {id}."));
                    attach(request, images, &result.images);
                }
            }
        }
    }
    messages.extend(tool_images);
    messages
}

pub(crate) fn request_body(settings: &BodySettings, request: &crate::ModelRequest) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(message("system", request.system.clone()));
    }
    messages.extend(history_messages(request));
    let tools = request
        .tools
        .iter()
        .map(|t| Tool {
            kind: "function",
            function: ToolFunction {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
            },
        })
        .collect();
    let body = ChatRequest {
        model: &settings.model,
        messages,
        stream: true,
        tools,
        options: Options {
            num_ctx: settings.context_window,
            num_predict: settings.max_tokens(request),
        },
    };
    serde_json::to_value(body).unwrap_or(Value::Null)
}

/// How many tool calls the request's history holds: minted call ids start
/// there, so an id Ollama did not give never repeats one already sent.
pub(crate) fn calls_in(request: &crate::ModelRequest) -> usize {
    request
        .history
        .iter()
        .filter(|item| matches!(item, HistoryItem::ToolCall(_)))
        .count()
}
