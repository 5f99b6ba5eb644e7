//! Playing one scripted step: the stream items it makes, with the sizes
//! and token estimates it reports.

use super::step::{ScriptStep, ScriptToolCall};
use crate::json_text;
use crate::{ModelRequest, ProviderError, StreamItem};
use bearagent_kernel::{Action, HistoryItem, StopReason, TokenUsage, ToolCall};

/// Size of what the model would read: system prompt, history and tools.
pub(super) fn request_bytes(request: &ModelRequest) -> usize {
    let history: usize = request
        .history
        .iter()
        .map(|item| match item {
            HistoryItem::Message(m) => m.content.len(),
            HistoryItem::ToolCall(c) => c.tool_name.as_str().len() + c.call_id.as_str().len() + 64,
            HistoryItem::ToolResult(r) => r.content.len() + r.call_id.as_str().len(),
        })
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + 256)
        .sum();
    request.system.len() + history + tools
}

/// Deterministic token estimate: about four bytes a token.
pub(super) fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

fn chunks(text: &str) -> Vec<String> {
    // Stream in word-sized pieces so consumers see real deltas.
    text.split_inclusive(' ').map(str::to_owned).collect()
}

/// Everything one scripted step streams: its text, then its action (tool
/// calls, an answer, a raw reply to parse) and the completion, or the
/// failure it stands for.
pub(super) fn step_items(
    index: usize,
    step: ScriptStep,
    input_bytes: usize,
) -> Vec<Result<StreamItem, ProviderError>> {
    let mut items = Vec::new();
    let mut output_bytes = step.text.as_ref().map_or(0, String::len);
    if let Some(text) = &step.text {
        items.extend(text_deltas(text));
    }
    let usage_for = |out: usize| {
        step.usage
            .unwrap_or_else(|| TokenUsage::new(estimate_tokens(input_bytes), estimate_tokens(out)))
    };
    if let Some(failure) = &step.error {
        items.push(Err(ProviderError::Provider {
            provider: "script".into(),
            message: failure.message.clone(),
            retryable: failure.retryable,
            status: None,
        }));
        return items;
    }
    if step.truncate {
        return items;
    }
    match action_items(index, &step, &mut output_bytes, &mut items) {
        Ok(stop_reason) => items.push(Ok(StreamItem::Completed {
            usage: usage_for(output_bytes),
            stop_reason,
        })),
        Err(message) => items.push(Err(ProviderError::InvalidOutput {
            message,
            usage: usage_for(output_bytes),
        })),
    }
    items
}

fn text_deltas(text: &str) -> impl Iterator<Item = Result<StreamItem, ProviderError>> {
    chunks(text)
        .into_iter()
        .map(|c| Ok(StreamItem::TextDelta(c)))
}

/// Streams the step's action into `items`, counting its bytes into
/// `output_bytes`; an action the model could not have made valid is the
/// error message of an invalid output.
fn action_items(
    index: usize,
    step: &ScriptStep,
    output_bytes: &mut usize,
    items: &mut Vec<Result<StreamItem, ProviderError>>,
) -> Result<StopReason, String> {
    let calls: Option<Vec<&ScriptToolCall>> = match (&step.tool_call, &step.tool_calls) {
        (Some(one), _) => Some(vec![one]),
        (None, Some(many)) => Some(many.iter().collect()),
        (None, None) => None,
    };
    match (&calls, &step.final_answer, &step.raw_text) {
        (Some(calls), _, _) => {
            tool_call_items(index, calls, output_bytes, items)?;
            Ok(StopReason::ToolUse)
        }
        (None, Some(answer), _) => {
            *output_bytes += answer.len();
            items.extend(text_deltas(answer));
            Ok(StopReason::EndTurn)
        }
        (None, None, Some(raw)) => {
            *output_bytes += raw.len();
            raw_reply_items(raw, items)
        }
        (None, None, None) => Ok(StopReason::Other),
    }
}

/// The step's tool calls in order, with ids made up from the step's
/// position where the script gives none; stops at the first invalid one.
fn tool_call_items(
    index: usize,
    calls: &[&ScriptToolCall],
    output_bytes: &mut usize,
    items: &mut Vec<Result<StreamItem, ProviderError>>,
) -> Result<(), String> {
    for (j, call) in calls.iter().enumerate() {
        let call_id = call.call_id.clone().unwrap_or_else(|| {
            if calls.len() == 1 {
                format!("script_call_{}", index + 1)
            } else {
                format!("script_call_{}_{}", index + 1, j + 1)
            }
        });
        *output_bytes += call.arguments.to_string().len();
        let call = ToolCall::new(call_id, call.tool_name.clone(), call.arguments.clone())
            .map_err(|e| e.to_string())?;
        items.push(Ok(StreamItem::ToolCall(call)));
    }
    Ok(())
}

/// A raw reply, parsed strictly as JSON-text mode would.
fn raw_reply_items(
    raw: &str,
    items: &mut Vec<Result<StreamItem, ProviderError>>,
) -> Result<StopReason, String> {
    match json_text::parse_reply(raw)? {
        Action::ToolCalls { calls } => {
            items.extend(calls.into_iter().map(|c| Ok(StreamItem::ToolCall(c))));
            Ok(StopReason::ToolUse)
        }
        Action::FinalAnswer(a) => {
            items.push(Ok(StreamItem::TextDelta(a.content)));
            Ok(StopReason::EndTurn)
        }
    }
}
