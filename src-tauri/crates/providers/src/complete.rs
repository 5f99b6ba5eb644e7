//! The seed's `ModelAdapter` view on top of a streaming provider: one call,
//! one validated action.

use crate::{ModelProvider, ModelRequest, ProviderError, RetryNotice, StreamItem};
use bearagent_kernel::{Action, FinalAnswer, StopReason, TokenUsage, ToolCall};
use futures::StreamExt;

#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    pub action: Action,
    pub usage: TokenUsage,
    pub stop_reason: StopReason,
    /// All streamed text, including narration before a tool call.
    pub text: String,
}

/// What a caller sees while a call streams.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress<'a> {
    TextDelta(&'a str),
    Retrying(&'a RetryNotice),
}

/// Drives one streamed call to its completion. `on_progress` sees text as it
/// arrives and each retry. A stream that ends without a completion is a
/// truncation error, never a fake completion, and its partial tool calls
/// are discarded.
pub async fn complete(
    provider: &dyn ModelProvider,
    request: ModelRequest,
    mut on_progress: impl FnMut(Progress<'_>) + Send,
) -> Result<ModelResponse, ProviderError> {
    let mut stream = provider.stream(request);
    let mut text = String::new();
    let mut calls: Vec<ToolCall> = Vec::new();
    let mut completion: Option<(TokenUsage, StopReason)> = None;
    while let Some(item) = stream.next().await {
        match item? {
            StreamItem::TextDelta(delta) => {
                if completion.is_none() {
                    on_progress(Progress::TextDelta(&delta));
                    text.push_str(&delta);
                }
            }
            StreamItem::Retrying(notice) => {
                // A retry restarts the answer from scratch.
                text.clear();
                calls.clear();
                on_progress(Progress::Retrying(&notice));
            }
            StreamItem::ToolCall(call) => calls.push(call),
            StreamItem::AnswerText(answer) => text = answer,
            StreamItem::Completed { usage, stop_reason } => {
                if completion.is_some() {
                    return Err(ProviderError::InvalidOutput {
                        message: "the stream completed twice".into(),
                        usage,
                    });
                }
                completion = Some((usage, stop_reason));
            }
        }
    }
    let Some((usage, stop_reason)) = completion else {
        return Err(ProviderError::TruncatedStream {
            message: "no completion was received".into(),
        });
    };
    let action = if calls.is_empty() {
        if text.trim().is_empty() {
            return Err(ProviderError::InvalidOutput {
                message: "the model returned neither text nor a tool call".into(),
                usage,
            });
        }
        Action::FinalAnswer(FinalAnswer {
            content: text.clone(),
        })
    } else {
        // Several calls in one turn run in order; a turn that repeats a
        // call id could not be answered unambiguously.
        Action::tool_calls(calls).map_err(|e| ProviderError::InvalidOutput {
            message: e.to_string(),
            usage,
        })?
    };
    if stop_reason == StopReason::MaxTokens && !action.calls().is_empty() {
        return Err(ProviderError::InvalidOutput {
            message: "the output hit the token limit inside a tool call".into(),
            usage,
        });
    }
    Ok(ModelResponse {
        action,
        usage,
        stop_reason,
        text,
    })
}
