//! JSON-text tool mode (seed 001) for any provider: for chat models without
//! native tool calling. The request carries no native tools; the system
//! prompt describes them and the exact reply format, and the history is
//! plain messages (tool calls as assistant JSON, results as user JSON). The
//! reply streams live as text and is parsed strictly when it completes: a
//! tool call, a final answer, or invalid output the loop feeds back.

use crate::json_text::{encode_history, parse_reply, PROTOCOL_INSTRUCTIONS};
use crate::{ModelProvider, ModelRequest, ModelStream, ProviderError, ProviderInfo, StreamItem};
use bearagent_kernel::{Action, HistoryItem, StopReason};
use futures::StreamExt;
use std::sync::Arc;

pub use bearagent_kernel::ToolMode;

/// `inner` spoken to in JSON-text mode.
pub fn json_text_provider(inner: Arc<dyn ModelProvider>) -> Arc<dyn ModelProvider> {
    Arc::new(JsonTextProvider { inner })
}

struct JsonTextProvider {
    inner: Arc<dyn ModelProvider>,
}

/// The system prompt with the tools and the reply format spelled out.
pub fn system_prompt(request: &ModelRequest) -> String {
    let mut prompt = request.system.clone();
    prompt.push_str("\n\n# Tools\n");
    if request.tools.is_empty() {
        prompt.push_str("(none)\n");
    }
    for tool in request.tools.iter() {
        prompt.push_str(&format!(
            "\n## {}\n{}\nArguments (JSON Schema): {}\n",
            tool.name, tool.description, tool.parameters
        ));
    }
    prompt.push_str("\n# Reply format\n");
    prompt.push_str(PROTOCOL_INSTRUCTIONS);
    prompt
}

fn plain_request(request: ModelRequest) -> ModelRequest {
    let system = system_prompt(&request);
    let history: Vec<HistoryItem> = encode_history(&request.history)
        .into_iter()
        .map(HistoryItem::Message)
        .collect();
    ModelRequest {
        system,
        history: history.into(),
        tools: Default::default(),
        max_output_tokens: request.max_output_tokens,
        images: Default::default(),
    }
}

impl ModelProvider for JsonTextProvider {
    fn tool_mode(&self) -> ToolMode {
        ToolMode::JsonText
    }

    fn info(&self) -> ProviderInfo {
        // The reply format is strict JSON text and the history plain
        // messages: no image goes out in this mode.
        ProviderInfo {
            vision: false,
            ..self.inner.info()
        }
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        // A summary is plain text, not an action: nothing to parse.
        if crate::window::is_compaction(&request) {
            return self.inner.stream(plain_request(request));
        }
        let inner = self.inner.stream(plain_request(request));
        let mut reply = String::new();
        Box::pin(inner.flat_map(move |item| {
            let out: Vec<Result<StreamItem, ProviderError>> = match item {
                Ok(StreamItem::TextDelta(delta)) => {
                    reply.push_str(&delta);
                    vec![Ok(StreamItem::TextDelta(delta))]
                }
                Ok(StreamItem::Retrying(notice)) => {
                    reply.clear();
                    vec![Ok(StreamItem::Retrying(notice))]
                }
                // No tools were offered natively: a native call is not an
                // answer in this mode.
                Ok(StreamItem::ToolCall(call)) => vec![Err(ProviderError::InvalidOutput {
                    message: format!(
                        "in JSON-text mode a tool call must be written as JSON text, \
                         not as a native call ({})",
                        call.tool_name
                    ),
                    usage: Default::default(),
                })],
                Ok(StreamItem::AnswerText(text)) => {
                    reply = text;
                    vec![]
                }
                Ok(StreamItem::Completed { usage, stop_reason }) => {
                    finish(std::mem::take(&mut reply), usage, stop_reason)
                }
                Err(e) => vec![Err(e)],
            };
            futures::stream::iter(out)
        }))
    }
}

/// How much of an invalid reply is kept in its error.
const MAX_KEPT_REPLY: usize = 2048;

fn capped(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// The reply parsed strictly: the answer's text or one tool call, then the
/// completion; anything else is invalid output carrying the usage spent.
fn finish(
    reply: String,
    usage: bearagent_kernel::TokenUsage,
    stop_reason: StopReason,
) -> Vec<Result<StreamItem, ProviderError>> {
    match parse_reply(&reply) {
        Ok(Action::FinalAnswer(answer)) => vec![
            Ok(StreamItem::AnswerText(answer.content)),
            Ok(StreamItem::Completed {
                usage,
                stop_reason: StopReason::EndTurn,
            }),
        ],
        Ok(Action::ToolCalls { calls }) if stop_reason != StopReason::MaxTokens => {
            let mut out = vec![Ok(StreamItem::AnswerText(String::new()))];
            out.extend(calls.into_iter().map(|c| Ok(StreamItem::ToolCall(c))));
            out.push(Ok(StreamItem::Completed {
                usage,
                stop_reason: StopReason::ToolUse,
            }));
            out
        }
        Ok(Action::ToolCalls { .. }) => vec![Err(ProviderError::InvalidOutput {
            message: "the reply hit the token limit".into(),
            usage,
        })],
        // The reply is kept in the error (and so in the event) so a run
        // that fails on prose shows what the model actually said.
        Err(problem) => vec![Err(ProviderError::InvalidOutput {
            message: format!(
                "{problem}. Your reply was: {:?}. {PROTOCOL_INSTRUCTIONS}",
                capped(&reply, MAX_KEPT_REPLY)
            ),
            usage,
        })],
    }
}

#[cfg(test)]
#[path = "json_text_mode_tests.rs"]
mod tests;
