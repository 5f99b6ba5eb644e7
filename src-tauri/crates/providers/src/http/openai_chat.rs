//! OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by
//! llama.cpp, Ollama, vLLM and most local servers: request body and stream
//! decoder, with this protocol's own wire types.

use super::body::BodySettings;
use super::calls::{finish, PendingCall};
use super::errors::{malformed, stream_error, truncated, WireError};
use super::sse::{Flow, WireDecoder};
use crate::{ModelRequest, ProviderError, StreamItem};
use bearagent_kernel::{HistoryItem, ImageRef, Role, StopReason, TokenUsage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatMessage>,
    stream: bool,
    stream_options: StreamOptions,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ChatTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct ChatMessage {
    role: &'static str,
    /// `null` for an assistant turn that only calls tools.
    content: Option<Content>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ChatToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
}

/// Plain text, or parts when images go with it.
#[derive(Serialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Serialize)]
struct ImageUrl {
    /// A `data:` URL: the API takes the image inline.
    url: String,
}

#[derive(Serialize)]
struct ChatToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunctionCall,
}

#[derive(Serialize)]
struct ChatFunctionCall {
    name: String,
    /// JSON text, as the API wants it.
    arguments: String,
}

#[derive(Serialize)]
struct ChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunction<'a>,
}

#[derive(Serialize)]
struct ChatFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn message(role: &'static str, content: Option<String>) -> ChatMessage {
    ChatMessage {
        role,
        content: content.map(Content::Text),
        tool_calls: Vec::new(),
        tool_call_id: None,
    }
}

/// An image as a part: inline as a `data:` URL, or (its bytes were not
/// attached: a runtime bug, never silent) a text part saying so.
fn image_part(request: &ModelRequest, image: &ImageRef) -> Part {
    match request.data_url(image) {
        Some(url) => Part::ImageUrl {
            image_url: ImageUrl { url },
        },
        None => Part::Text {
            text: super::images::missing(image),
        },
    }
}

fn images_message(parts: Vec<Part>) -> ChatMessage {
    let mut m = message("user", None);
    m.content = Some(Content::Parts(parts));
    m
}

/// The history as chat messages. Tool messages carry text only: the
/// images a turn's tools returned follow its tool messages as one user
/// message.
fn history_messages(request: &ModelRequest) -> Vec<ChatMessage> {
    let mut messages: Vec<ChatMessage> = Vec::new();
    let mut tool_images: Vec<Part> = Vec::new();
    for item in request.history.iter() {
        if !matches!(item, HistoryItem::ToolResult(_)) && !tool_images.is_empty() {
            messages.push(images_message(std::mem::take(&mut tool_images)));
        }
        match item {
            HistoryItem::Message(m) => messages.push(user_or_assistant(request, m)),
            HistoryItem::ToolCall(call) => push_call(&mut messages, call),
            HistoryItem::ToolResult(result) => {
                let mut m = message("tool", Some(result.content.clone()));
                m.tool_call_id = Some(result.call_id.as_str().to_owned());
                messages.push(m);
                if !result.images.is_empty() {
                    tool_images.push(Part::Text {
                        text: format!("Images returned by tool call {}:", result.call_id),
                    });
                    tool_images.extend(result.images.iter().map(|i| image_part(request, i)));
                }
            }
        }
    }
    if !tool_images.is_empty() {
        messages.push(images_message(tool_images));
    }
    messages
}

/// A message as text, or as parts when images go with it.
fn user_or_assistant(request: &ModelRequest, m: &bearagent_kernel::Message) -> ChatMessage {
    if m.images.is_empty() {
        return message(role(m.role), Some(m.content.clone()));
    }
    let mut parts = vec![Part::Text {
        text: m.content.clone(),
    }];
    parts.extend(m.images.iter().map(|i| image_part(request, i)));
    let mut wire = message(role(m.role), None);
    wire.content = Some(Content::Parts(parts));
    wire
}

/// Narration and the calls of one turn are one assistant message.
fn push_call(messages: &mut Vec<ChatMessage>, call: &bearagent_kernel::ToolCall) {
    let wire = ChatToolCall {
        id: call.call_id.as_str().to_owned(),
        kind: "function",
        function: ChatFunctionCall {
            name: call.tool_name.as_str().to_owned(),
            arguments: Value::Object(call.arguments.clone()).to_string(),
        },
    };
    match messages.last_mut() {
        Some(last) if last.role == "assistant" => last.tool_calls.push(wire),
        _ => {
            let mut m = message("assistant", None);
            m.tool_calls.push(wire);
            messages.push(m);
        }
    }
}

pub(crate) fn request_body(settings: &BodySettings, request: &ModelRequest) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(message("system", Some(request.system.clone())));
    }
    messages.extend(history_messages(request));
    let tools: Vec<ChatTool<'_>> = request
        .tools
        .iter()
        .map(|t| ChatTool {
            kind: "function",
            function: ChatFunction {
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
        stream_options: StreamOptions {
            include_usage: true,
        },
        max_tokens: settings.max_tokens(request),
        // Several calls per turn are welcome: they run in order.
        parallel_tool_calls: (!tools.is_empty()).then_some(true),
        tools,
    };
    serde_json::to_value(body).unwrap_or(Value::Null)
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<DeltaCall>>,
}

#[derive(Deserialize)]
struct DeltaCall {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    #[serde(default)]
    name: Option<String>,
    /// A JSON text fragment; a few servers send the arguments object itself.
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<CachedDetails>,
}

/// `prompt_tokens_details` / `input_tokens_details`: the part of the input
/// served from the prompt cache.
#[derive(Deserialize)]
pub(crate) struct CachedDetails {
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

/// Chat stream semantics: tool calls assembled by `index`, usage from the
/// chunk that carries it (the final `choices: []` one), `[DONE]` ends; a
/// server that sends no `[DONE]` may end the body after `finish_reason`.
pub(crate) struct Decoder {
    provider: String,
    secret: Option<String>,
    calls: BTreeMap<u64, PendingCall>,
    last_index: Option<u64>,
    finish_reason: Option<String>,
    usage: Option<TokenUsage>,
}

impl Decoder {
    pub fn new(provider: &str, secret: Option<&str>) -> Self {
        Self {
            provider: provider.to_owned(),
            secret: secret.map(str::to_owned),
            calls: BTreeMap::new(),
            last_index: None,
            finish_reason: None,
            usage: None,
        }
    }

    fn tool_delta(&mut self, delta: DeltaCall) {
        // Servers that omit `index` start a new call with each new id.
        let index = delta
            .index
            .unwrap_or_else(|| match (&delta.id, self.last_index) {
                (Some(id), Some(last)) if self.calls.get(&last).is_some_and(|c| &c.id == id) => {
                    last
                }
                (None, Some(last)) => last,
                _ => self.calls.keys().next_back().map_or(0, |k| k + 1),
            });
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
            if call.id.is_empty() {
                call.id = id;
            }
        }
        if let Some(function) = delta.function {
            if let Some(name) = function.name.filter(|n| !n.is_empty()) {
                if call.name.is_empty() {
                    call.name = name;
                }
            }
            match function.arguments {
                Some(Value::String(fragment)) => call.arguments.push_str(&fragment),
                Some(Value::Null) | None => {}
                Some(whole) => call.arguments = whole.to_string(),
            }
        }
    }

    fn complete(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let stop_reason = match self.finish_reason.as_deref() {
            Some("stop") => StopReason::EndTurn,
            Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
            Some("length") => StopReason::MaxTokens,
            _ => StopReason::Other,
        };
        for (index, call) in self.calls.iter_mut() {
            if call.id.is_empty() {
                // Some local servers send no ids; the client only needs one
                // that it sends back consistently.
                call.id = format!("call_{index}");
            }
        }
        finish(
            self.calls.values(),
            self.usage.unwrap_or_default(),
            stop_reason,
            out,
        )
    }
}

impl WireDecoder for Decoder {
    fn usage(&self) -> TokenUsage {
        self.usage.unwrap_or_default()
    }

    fn event(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<StreamItem>,
    ) -> Result<Flow, ProviderError> {
        if data.trim() == "[DONE]" {
            self.complete(out)?;
            return Ok(Flow::Done);
        }
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|_| malformed(&self.provider, "a data line is not a JSON chunk"))?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            let wire = WireError::from_value(&serde_json::json!({ "error": error }));
            return Err(stream_error(&self.provider, &wire, self.secret.as_deref()));
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(TokenUsage {
                input: usage.prompt_tokens.unwrap_or(0),
                output: usage.completion_tokens.unwrap_or(0),
                cached_input: usage
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
            });
        }
        for choice in chunk.choices.unwrap_or_default() {
            if choice.index.unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push(StreamItem::TextDelta(text));
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.tool_delta(call);
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_reason = Some(reason);
            }
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        if self.finish_reason.is_none() {
            return Err(truncated(
                &self.provider,
                "the stream ended before a finish_reason",
            ));
        }
        self.complete(out)
    }
}
