//! Ollama's `/api/chat` stream: one JSON object per line, each carrying a
//! piece of `message.content` or whole tool calls (arguments as a JSON
//! object), the last one `done: true` with `done_reason` and the token
//! counts; an error is a line `{"error": "..."}`.

use super::calls::{finish, PendingCall};
use super::errors::{malformed, stream_error, truncated, WireError};
use super::ndjson::UNTERMINATED;
use super::sse::{Flow, WireDecoder};
use crate::{ProviderError, StreamItem};
use bearagent_kernel::{StopReason, TokenUsage};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    #[serde(default)]
    eval_count: Option<u64>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireCall>>,
}

#[derive(Deserialize)]
struct WireCall {
    /// Sent by newer Ollama versions only.
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: Option<String>,
    /// An object; JSON text is taken too, from servers that imitate Ollama.
    #[serde(default)]
    arguments: Option<Value>,
}

pub(crate) struct Decoder {
    provider: String,
    secret: Option<String>,
    /// The number of the first call id this reply mints.
    first_minted: usize,
    calls: Vec<PendingCall>,
    usage: Option<TokenUsage>,
}

impl Decoder {
    pub fn new(provider: &str, secret: Option<&str>, first_minted: usize) -> Self {
        Self {
            provider: provider.to_owned(),
            secret: secret.map(str::to_owned),
            first_minted,
            calls: Vec::new(),
            usage: None,
        }
    }

    fn call(&mut self, wire: WireCall) {
        let function = wire.function.unwrap_or(WireFunction {
            name: None,
            arguments: None,
        });
        // Ollama gives no ids (older versions): mint one that is stable for
        // this reply and new to the history it answers.
        let id = wire
            .id
            .filter(|id| !id.trim().is_empty())
            .unwrap_or_else(|| format!("call_{}", self.first_minted + self.calls.len()));
        let arguments = match function.arguments {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text,
            Some(other) => other.to_string(),
        };
        self.calls.push(PendingCall {
            id,
            name: function.name.unwrap_or_default(),
            arguments,
        });
    }

    fn complete(&mut self, line: &Line, out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        let usage = TokenUsage {
            input: line.prompt_eval_count.unwrap_or(0),
            output: line.eval_count.unwrap_or(0),
            cached_input: 0,
        };
        self.usage = Some(usage);
        // Ollama says "stop" after tool calls too.
        let stop_reason = match line.done_reason.as_deref() {
            Some("length") => StopReason::MaxTokens,
            _ if !self.calls.is_empty() => StopReason::ToolUse,
            Some("stop") | None => StopReason::EndTurn,
            Some(_) => StopReason::Other,
        };
        finish(&self.calls, usage, stop_reason, out)
    }
}

impl WireDecoder for Decoder {
    fn usage(&self) -> TokenUsage {
        self.usage.unwrap_or_default()
    }

    fn event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<StreamItem>,
    ) -> Result<Flow, ProviderError> {
        let mut line: Line = match serde_json::from_str(data) {
            Ok(line) => line,
            Err(_) if event == UNTERMINATED => {
                return Err(truncated(&self.provider, "the stream ended inside a line"))
            }
            Err(_) => return Err(malformed(&self.provider, "a line is not a JSON object")),
        };
        if let Some(error) = line.error.take().filter(|e| !e.is_null()) {
            let wire = WireError::from_value(&serde_json::json!({ "error": error }));
            return Err(stream_error(&self.provider, &wire, self.secret.as_deref()));
        }
        if let Some(message) = line.message.take() {
            if let Some(text) = message.content.filter(|t| !t.is_empty()) {
                out.push(StreamItem::TextDelta(text));
            }
            for call in message.tool_calls.unwrap_or_default() {
                self.call(call);
            }
        }
        if !line.done {
            return Ok(Flow::Continue);
        }
        self.complete(&line, out)?;
        Ok(Flow::Done)
    }

    fn end(&mut self, _out: &mut Vec<StreamItem>) -> Result<(), ProviderError> {
        Err(truncated(
            &self.provider,
            "the stream ended before the line with done: true",
        ))
    }
}

#[cfg(test)]
#[path = "ollama_tests.rs"]
mod tests;
