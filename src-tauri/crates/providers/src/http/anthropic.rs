//! Anthropic Messages (`POST /v1/messages`): request body and stream
//! decoder, with this protocol's own wire types.

use super::body::BodySettings;
use super::calls::{finish, PendingCall};
use super::errors::{malformed, stream_error, truncated, WireError};
use super::sse::{Flow, WireDecoder};
use crate::{ModelRequest, ProviderError, StreamItem};
use bearagent_kernel::{HistoryItem, ImageRef, Role, StopReason, TokenUsage, ToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Serialize)]
struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    system: String,
    messages: Vec<Turn>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
}

#[derive(Serialize)]
struct Turn {
    role: &'static str,
    content: Vec<Block>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    Image {
        source: ImageSource,
    },
    ToolResult {
        tool_use_id: String,
        content: ToolResultContent,
        is_error: bool,
    },
}

#[derive(Serialize)]
struct ImageSource {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'static str,
    data: String,
}

/// A tool result's text, or its text and images as blocks.
#[derive(Serialize)]
#[serde(untagged)]
enum ToolResultContent {
    Text(String),
    Blocks(Vec<Block>),
}

/// An image as a base64 `image` block, or a text block when its bytes were
/// not attached.
fn image_block(request: &ModelRequest, image: &ImageRef) -> Block {
    match request.base64_of(image) {
        Some(data) => Block::Image {
            source: ImageSource {
                kind: "base64",
                media_type: image.media_type.mime(),
                data,
            },
        },
        None => Block::Text {
            text: super::images::missing(image),
        },
    }
}

fn tool_result_content(request: &ModelRequest, result: &ToolResult) -> ToolResultContent {
    if result.images.is_empty() {
        return ToolResultContent::Text(result.content.clone());
    }
    let mut blocks = vec![Block::Text {
        text: result.content.clone(),
    }];
    blocks.extend(result.images.iter().map(|i| image_block(request, i)));
    ToolResultContent::Blocks(blocks)
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct ToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
    disable_parallel_tool_use: bool,
}

/// Appends a block to the last turn when it has the same role, else opens
/// a new turn: the API wants strictly alternating roles.
fn push(turns: &mut Vec<Turn>, role: &'static str, block: Block) {
    match turns.last_mut() {
        Some(turn) if turn.role == role => {
            if matches!(block, Block::ToolResult { .. }) {
                // Tool results come first in a user turn, text after them.
                let at = turn
                    .content
                    .iter()
                    .take_while(|b| matches!(b, Block::ToolResult { .. }))
                    .count();
                turn.content.insert(at, block);
            } else {
                turn.content.push(block);
            }
        }
        _ => turns.push(Turn {
            role,
            content: vec![block],
        }),
    }
}

/// A user message with images: the images first, then the words about
/// them (as the API's guide advises).
fn push_user_images(turns: &mut Vec<Turn>, request: &ModelRequest, m: &bearagent_kernel::Message) {
    for image in &m.images {
        push(turns, "user", image_block(request, image));
    }
    if !m.content.is_empty() {
        push(
            turns,
            "user",
            Block::Text {
                text: m.content.clone(),
            },
        );
    }
}

pub(crate) fn request_body(settings: &BodySettings, request: &ModelRequest) -> Value {
    let mut system = request.system.clone();
    let mut turns: Vec<Turn> = Vec::new();
    for item in request.history.iter() {
        match item {
            HistoryItem::Message(m) if m.content.is_empty() && m.images.is_empty() => {}
            HistoryItem::Message(m) if m.role == Role::User && !m.images.is_empty() => {
                push_user_images(&mut turns, request, m)
            }
            HistoryItem::Message(m) => match m.role {
                Role::System => {
                    // No system role in `messages`: it joins the prompt.
                    if !system.is_empty() {
                        system.push_str("\n\n");
                    }
                    system.push_str(&m.content);
                }
                Role::User => push(
                    &mut turns,
                    "user",
                    Block::Text {
                        text: m.content.clone(),
                    },
                ),
                Role::Assistant => push(
                    &mut turns,
                    "assistant",
                    Block::Text {
                        text: m.content.clone(),
                    },
                ),
            },
            HistoryItem::ToolCall(call) => push(
                &mut turns,
                "assistant",
                Block::ToolUse {
                    id: call.call_id.as_str().to_owned(),
                    name: call.tool_name.as_str().to_owned(),
                    input: Value::Object(call.arguments.clone()),
                },
            ),
            HistoryItem::ToolResult(result) => push(
                &mut turns,
                "user",
                Block::ToolResult {
                    tool_use_id: result.call_id.as_str().to_owned(),
                    content: tool_result_content(request, result),
                    is_error: result.is_error,
                },
            ),
        }
    }
    let tools: Vec<Tool<'_>> = request
        .tools
        .iter()
        .map(|t| Tool {
            name: &t.name,
            description: &t.description,
            input_schema: &t.parameters,
        })
        .collect();
    let body = MessagesRequest {
        model: &settings.model,
        max_tokens: settings.max_tokens(request),
        stream: true,
        system,
        messages: turns,
        tool_choice: (!tools.is_empty()).then_some(ToolChoice {
            kind: "auto",
            // Several calls per turn are welcome: they run in order.
            disable_parallel_tool_use: false,
        }),
        tools,
    };
    serde_json::to_value(body).unwrap_or(Value::Null)
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: u64,
        content_block: StartBlock,
    },
    ContentBlockDelta {
        index: u64,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        #[serde(default)]
        delta: Option<MessageDeltaBody>,
        #[serde(default)]
        usage: Option<Usage>,
    },
    MessageStop,
    Error {
        #[serde(flatten)]
        body: Map<String, Value>,
    },
    #[serde(other)]
    Ignored,
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StartBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        #[serde(default)]
        id: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        input: Option<Value>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct Usage {
    /// Input tokens not read from or written to the prompt cache.
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

struct ToolBlock {
    call: PendingCall,
    /// The `input` of `content_block_start`: a placeholder (`{}`) unless a
    /// server sends the whole input there and no deltas.
    start_input: Option<Value>,
    closed: bool,
}

/// Messages stream semantics: blocks by index, `text_delta` and
/// `input_json_delta`, input tokens from `message_start`, cumulative usage
/// in `message_delta` (replaced, not added), `message_stop` ends. A tool
/// block that never closed (e.g. a `max_tokens` stop) is not emitted.
pub(crate) struct Decoder {
    provider: String,
    secret: Option<String>,
    tools: BTreeMap<u64, ToolBlock>,
    usage: TokenUsage,
    stop_reason: Option<String>,
}

impl Decoder {
    pub fn new(provider: &str, secret: Option<&str>) -> Self {
        Self {
            provider: provider.to_owned(),
            secret: secret.map(str::to_owned),
            tools: BTreeMap::new(),
            usage: TokenUsage::default(),
            stop_reason: None,
        }
    }

    fn take_usage(&mut self, usage: Option<Usage>) {
        if let Some(u) = usage {
            // Anthropic counts cache reads and writes apart from
            // `input_tokens`; BearAgent's input is every input token, with
            // cache reads also counted as cached.
            let cached = u.cache_read_input_tokens.unwrap_or(self.usage.cached_input);
            if let Some(uncached) = u.input_tokens {
                self.usage.input = uncached
                    .saturating_add(cached)
                    .saturating_add(u.cache_creation_input_tokens.unwrap_or(0));
            }
            self.usage.cached_input = cached;
            self.usage.output = u.output_tokens.unwrap_or(self.usage.output);
        }
    }

    fn complete(&mut self, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let stop_reason = match self.stop_reason.as_deref() {
            Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            _ => StopReason::Other,
        };
        let mut calls = Vec::new();
        for block in self.tools.values_mut().filter(|b| b.closed) {
            if block.call.arguments.trim().is_empty() {
                if let Some(Value::Object(map)) = block.start_input.take() {
                    block.call.arguments = Value::Object(map).to_string();
                }
            }
            calls.push(block.call.clone());
        }
        finish(&calls, self.usage, stop_reason, out)
    }
}

impl WireDecoder for Decoder {
    fn usage(&self) -> TokenUsage {
        self.usage
    }

    fn event(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut Vec<StreamItem>,
    ) -> Result<Flow, ProviderError> {
        let event: Event = serde_json::from_str(data)
            .map_err(|_| malformed(&self.provider, "an event is not the expected JSON"))?;
        match event {
            Event::MessageStart { message } => self.take_usage(message.usage),
            Event::ContentBlockStart {
                index,
                content_block,
            } => match content_block {
                StartBlock::Text { text } if !text.is_empty() => {
                    out.push(StreamItem::TextDelta(text))
                }
                StartBlock::ToolUse { id, name, input } => {
                    self.tools.insert(
                        index,
                        ToolBlock {
                            call: PendingCall {
                                id,
                                name,
                                arguments: String::new(),
                            },
                            start_input: input,
                            closed: false,
                        },
                    );
                }
                _ => {}
            },
            Event::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } if !text.is_empty() => {
                    out.push(StreamItem::TextDelta(text))
                }
                BlockDelta::InputJsonDelta { partial_json } => {
                    if let Some(block) = self.tools.get_mut(&index).filter(|b| !b.closed) {
                        block.call.arguments.push_str(&partial_json);
                    }
                }
                _ => {}
            },
            Event::ContentBlockStop { index } => {
                if let Some(block) = self.tools.get_mut(&index) {
                    block.closed = true;
                }
            }
            Event::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(reason);
                }
                self.take_usage(usage);
            }
            Event::MessageStop => {
                self.complete(out)?;
                return Ok(Flow::Done);
            }
            Event::Error { body } => {
                return Err(stream_error(
                    &self.provider,
                    &WireError::from_value(&Value::Object(body)),
                    self.secret.as_deref(),
                ))
            }
            Event::Ignored => {}
        }
        Ok(Flow::Continue)
    }

    fn end(&mut self, _out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        Err(truncated(
            &self.provider,
            "the stream ended before message_stop",
        ))
    }
}
