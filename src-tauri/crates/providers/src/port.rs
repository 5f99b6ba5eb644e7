//! The port every model adapter implements: a request built from
//! committed events in, a stream of text deltas, tool calls, retries and one
//! terminal item out.

use crate::ProviderError;
use bearagent_kernel::{ContentHash, HistoryItem, ImageRef, StopReason, TokenUsage, ToolCall};
use futures::Stream;
use serde::{Deserialize, Serialize};
use std::pin::Pin;

/// A tool as the model is told about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Everything one model call needs, built by the runtime's ContextBuilder
/// from committed events only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub system: String,
    /// Shared with the loop's context cache, so a step does not copy the
    /// whole conversation to send it.
    pub history: std::sync::Arc<Vec<HistoryItem>>,
    /// Shared with the loop's context cache: the same schemas every step.
    pub tools: std::sync::Arc<Vec<ToolSchema>>,
    pub max_output_tokens: Option<u32>,
    /// The bytes of the images the history references, by blob: read from
    /// the blob store just before the call. Never serialized, so a
    /// request's measured size and "what the model saw" hold the refs only.
    #[serde(skip)]
    pub images: ImageBytes,
}

/// Image bytes by blob hash, shared so a step does not copy them.
pub type ImageBytes = std::sync::Arc<std::collections::BTreeMap<ContentHash, std::sync::Arc<[u8]>>>;

impl ModelRequest {
    /// Every image the history references, in order (goal images, then
    /// tool-result images).
    pub fn image_refs(&self) -> impl Iterator<Item = &ImageRef> {
        self.history.iter().flat_map(|item| match item {
            HistoryItem::Message(m) => m.images.as_slice(),
            HistoryItem::ToolResult(r) => r.images.as_slice(),
            HistoryItem::ToolCall(_) => &[],
        })
    }

    /// `data:` URL of an image, None when its bytes were not attached.
    pub fn data_url(&self, image: &ImageRef) -> Option<String> {
        self.base64_of(image)
            .map(|data| format!("data:{};base64,{data}", image.media_type.mime()))
    }

    /// The image's bytes in standard base64, None when not attached.
    pub fn base64_of(&self, image: &ImageRef) -> Option<String> {
        use base64::Engine as _;
        let bytes = self.images.get(&image.blob)?;
        Some(base64::engine::general_purpose::STANDARD.encode(bytes))
    }
}

/// What an adapter's stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// Model text as it arrives; shown live, never an event by itself.
    TextDelta(String),
    /// A tool call whose arguments are complete and valid JSON.
    ToolCall(ToolCall),
    /// The turn's text as decoded from the reply, replacing what streamed
    /// (JSON-text mode: the answer inside the JSON object the model wrote).
    AnswerText(String),
    /// The one terminal item of a successful stream.
    Completed {
        usage: TokenUsage,
        stop_reason: StopReason,
    },
    /// The adapter is about to retry the request after a retryable failure
    /// (429, 5xx, overloaded). Anything streamed before it is void.
    Retrying(RetryNotice),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub attempt: u32,
    pub delay_ms: u64,
    /// Sanitised: provider name, status, short reason — never a key.
    pub message: String,
    /// The failed attempt had already streamed text or tool calls, which
    /// are void: front ends drop what they showed of it.
    pub discarded_partial: bool,
    /// Tokens the failed attempt was billed for, as far as the provider
    /// reported them before failing.
    pub usage: bearagent_kernel::TokenUsage,
}

pub type ModelStream = Pin<Box<dyn Stream<Item = Result<StreamItem, ProviderError>> + Send>>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderInfo {
    /// Configured provider name, e.g. "script" or "anthropic".
    pub name: String,
    pub model: String,
    /// True for the offline scripted provider, so every view can label it.
    pub scripted: bool,
    /// What calls cost (None: unknown, never assumed free).
    pub price: Option<bearagent_kernel::Price>,
    /// The most output tokens one call may produce when the request does
    /// not say (None: the provider does not limit it).
    pub max_output_tokens: Option<u32>,
    /// Tokens the model reads at most: from the config, else its family's.
    pub context_window: u64,
    /// The model reads images (from the config, else its family's).
    pub vision: bool,
    /// What a local server said about the model before the run (the
    /// window and tool support the config did not state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learned: Option<bearagent_kernel::LearnedModel>,
}

pub trait ModelProvider: Send + Sync {
    fn info(&self) -> ProviderInfo;
    /// How tools reach the model: natively unless the adapter speaks
    /// JSON text.
    fn tool_mode(&self) -> bearagent_kernel::ToolMode {
        bearagent_kernel::ToolMode::Native
    }
    /// Starts one streamed model call. Dropping the stream aborts it.
    fn stream(&self, request: ModelRequest) -> ModelStream;
}
