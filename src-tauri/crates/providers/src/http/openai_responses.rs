//! OpenAI Responses (`POST /v1/responses`): request body and stream
//! decoder, with this protocol's own wire types. Tool results go back by
//! `call_id`, never by the `fc_` item id; reasoning items are ignored.

use super::body::BodySettings;
use super::calls::{finish, PendingCall};
use super::errors::{malformed, stream_error, truncated, WireError};
use super::sse::{Flow, WireDecoder};
use crate::{ModelRequest, ProviderError, StreamItem};
use bearagent_kernel::{HistoryItem, ImageRef, Role, StopReason, TokenUsage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Serialize)]
struct ResponsesRequest<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    instructions: &'a str,
    input: Vec<InputItem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    max_output_tokens: u32,
    stream: bool,
    /// The whole history is sent each call; nothing needs storing.
    store: bool,
}

#[derive(Serialize)]
#[serde(untagged)]
enum InputItem {
    Message {
        role: &'static str,
        content: String,
    },
    /// A message with images: its content as typed parts.
    Parts {
        role: &'static str,
        content: Vec<Part>,
    },
    Typed(TypedItem),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    InputText {
        text: String,
    },
    InputImage {
        image_url: String,
        detail: &'static str,
    },
}

/// An image as an `input_image` part with a `data:` URL, or a text part
/// when its bytes were not attached.
fn image_part(request: &ModelRequest, image: &ImageRef) -> Part {
    match request.data_url(image) {
        Some(image_url) => Part::InputImage {
            image_url,
            detail: "auto",
        },
        None => Part::InputText {
            text: super::images::missing(image),
        },
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// A history item as input items: a tool result with images is followed
/// by a user message carrying them (a function call's output is text).
fn input_items(request: &ModelRequest, item: &HistoryItem) -> Vec<InputItem> {
    match item {
        HistoryItem::Message(m) if m.images.is_empty() => vec![InputItem::Message {
            role: role(m.role),
            content: m.content.clone(),
        }],
        HistoryItem::Message(m) => {
            let mut content = vec![Part::InputText {
                text: m.content.clone(),
            }];
            content.extend(m.images.iter().map(|i| image_part(request, i)));
            vec![InputItem::Parts {
                role: role(m.role),
                content,
            }]
        }
        HistoryItem::ToolCall(call) => vec![InputItem::Typed(TypedItem::FunctionCall {
            call_id: call.call_id.as_str().to_owned(),
            name: call.tool_name.as_str().to_owned(),
            arguments: Value::Object(call.arguments.clone()).to_string(),
        })],
        HistoryItem::ToolResult(result) => {
            let mut items = vec![InputItem::Typed(TypedItem::FunctionCallOutput {
                call_id: result.call_id.as_str().to_owned(),
                output: result.content.clone(),
            })];
            if !result.images.is_empty() {
                let mut content = vec![Part::InputText {
                    text: format!("Images returned by tool call {}:", result.call_id),
                }];
                content.extend(result.images.iter().map(|i| image_part(request, i)));
                items.push(InputItem::Parts {
                    role: "user",
                    content,
                });
            }
            items
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum TypedItem {
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: String,
    },
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

pub(crate) fn request_body(settings: &BodySettings, request: &ModelRequest) -> Value {
    let input = request
        .history
        .iter()
        .flat_map(|item| input_items(request, item))
        .collect();
    let tools: Vec<Tool<'_>> = request
        .tools
        .iter()
        .map(|t| Tool {
            kind: "function",
            name: &t.name,
            description: &t.description,
            parameters: &t.parameters,
        })
        .collect();
    let body = ResponsesRequest {
        model: &settings.model,
        instructions: &request.system,
        input,
        // Several calls per turn are welcome: they run in order.
        parallel_tool_calls: (!tools.is_empty()).then_some(true),
        tools,
        max_output_tokens: settings.max_tokens(request),
        stream: true,
        store: false,
    };
    serde_json::to_value(body).unwrap_or(Value::Null)
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Event {
    #[serde(rename = "response.output_text.delta")]
    TextDelta { delta: String },
    #[serde(rename = "response.output_item.added")]
    ItemAdded {
        #[serde(default)]
        output_index: Option<u64>,
        item: Item,
    },
    #[serde(rename = "response.output_item.done")]
    ItemDone {
        #[serde(default)]
        output_index: Option<u64>,
        item: Item,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        output_index: Option<u64>,
        delta: String,
    },
    #[serde(rename = "response.function_call_arguments.done")]
    ArgumentsDone {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        arguments: Option<String>,
    },
    #[serde(rename = "response.completed")]
    Completed { response: Response },
    #[serde(rename = "response.incomplete")]
    Incomplete { response: Response },
    #[serde(rename = "response.failed")]
    Failed { response: Response },
    #[serde(rename = "error")]
    Error {
        #[serde(flatten)]
        body: Map<String, Value>,
    },
    #[serde(other)]
    Ignored,
}

#[derive(Deserialize)]
struct Item {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<super::openai_chat::CachedDetails>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

struct FunctionCall {
    item_id: Option<String>,
    output_index: Option<u64>,
    call: PendingCall,
    done: bool,
}

/// Responses stream semantics: text from `output_text.delta`; a function
/// call is registered by `output_item.added`, grows by argument deltas and
/// is complete at `function_call_arguments.done` / `output_item.done`;
/// `response.completed` / `.incomplete` end with usage; `error` and
/// `response.failed` are provider errors.
pub(crate) struct Decoder {
    provider: String,
    secret: Option<String>,
    calls: Vec<FunctionCall>,
}

impl Decoder {
    pub fn new(provider: &str, secret: Option<&str>) -> Self {
        Self {
            provider: provider.to_owned(),
            secret: secret.map(str::to_owned),
            calls: Vec::new(),
        }
    }

    fn find(&mut self, item_id: Option<&str>, index: Option<u64>) -> Option<&mut FunctionCall> {
        self.calls.iter_mut().find(|c| match (item_id, &c.item_id) {
            (Some(wanted), Some(id)) => wanted == id,
            _ => index.is_some() && c.output_index == index,
        })
    }

    fn item_done(&mut self, index: Option<u64>, item: Item) {
        if item.kind != "function_call" {
            return;
        }
        if self.find(item.id.as_deref(), index).is_none() {
            self.add(index, &item);
        }
        if let Some(c) = self.find(item.id.as_deref(), index) {
            if let Some(arguments) = item.arguments {
                c.call.arguments = arguments;
            }
            if let Some(call_id) = item.call_id.filter(|s| !s.is_empty()) {
                c.call.id = call_id;
            }
            if let Some(name) = item.name.filter(|s| !s.is_empty()) {
                c.call.name = name;
            }
            c.done = true;
        }
    }

    fn add(&mut self, index: Option<u64>, item: &Item) {
        self.calls.push(FunctionCall {
            item_id: item.id.clone(),
            output_index: index,
            call: PendingCall {
                id: item.call_id.clone().unwrap_or_default(),
                name: item.name.clone().unwrap_or_default(),
                arguments: item.arguments.clone().unwrap_or_default(),
            },
            done: false,
        });
    }

    fn complete(
        &self,
        response: &Response,
        stop_reason: Option<StopReason>,
        out: &mut Vec<StreamItem>,
    ) -> Result<(), ProviderError> {
        let usage = response
            .usage
            .as_ref()
            .map_or_else(TokenUsage::default, |u| TokenUsage {
                input: u.input_tokens.unwrap_or(0),
                output: u.output_tokens.unwrap_or(0),
                cached_input: u
                    .input_tokens_details
                    .as_ref()
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
            });
        let done: Vec<&PendingCall> = self
            .calls
            .iter()
            .filter(|c| c.done)
            .map(|c| &c.call)
            .collect();
        let stop_reason = stop_reason.unwrap_or(if done.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        });
        finish(done, usage, stop_reason, out)
    }

    fn error(&self, body: &Value) -> ProviderError {
        stream_error(
            &self.provider,
            &WireError::from_value(body),
            self.secret.as_deref(),
        )
    }
}

impl WireDecoder for Decoder {
    fn event(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<StreamItem>,
    ) -> Result<Flow, ProviderError> {
        let event: Event = serde_json::from_str(data)
            .map_err(|_| malformed(&self.provider, "an event is not the expected JSON"))?;
        match event {
            Event::TextDelta { delta } if !delta.is_empty() => {
                out.push(StreamItem::TextDelta(delta))
            }
            Event::ItemAdded { output_index, item } if item.kind == "function_call" => {
                self.add(output_index, &item)
            }
            Event::ArgumentsDelta {
                item_id,
                output_index,
                delta,
            } => {
                if let Some(c) = self.find(item_id.as_deref(), output_index) {
                    c.call.arguments.push_str(&delta);
                }
            }
            Event::ArgumentsDone {
                item_id,
                output_index,
                arguments,
            } => {
                if let Some(c) = self.find(item_id.as_deref(), output_index) {
                    if let Some(arguments) = arguments {
                        c.call.arguments = arguments;
                    }
                    c.done = true;
                }
            }
            Event::ItemDone { output_index, item } => self.item_done(output_index, item),
            Event::Completed { response } => {
                self.complete(&response, None, out)?;
                return Ok(Flow::Done);
            }
            Event::Incomplete { response } => {
                let reason = response
                    .incomplete_details
                    .as_ref()
                    .and_then(|d| d.reason.as_deref());
                let stop = match reason {
                    Some("max_output_tokens") => StopReason::MaxTokens,
                    _ => StopReason::Other,
                };
                self.complete(&response, Some(stop), out)?;
                return Ok(Flow::Done);
            }
            Event::Failed { response } => {
                let body = serde_json::json!({ "error": response.error.unwrap_or(Value::Null) });
                return Err(self.error(&body));
            }
            Event::Error { body } => return Err(self.error(&Value::Object(body))),
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, _out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        Err(truncated(
            &self.provider,
            "the stream ended before response.completed",
        ))
    }
}
