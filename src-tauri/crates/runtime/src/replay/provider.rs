//! The replay's model: each call answers with what the record says the
//! model answered (its retries first), a compaction with the recorded
//! summary; where the record says the user cancelled or the wall time ran
//! out during the call, it never answers and the loop's own path records
//! the end.

use super::tape::Tape;
use bearagent_kernel::{Action, EventPayload, ModelErrorClass, StopReason, TokenUsage};
use bearagent_providers::{
    ModelProvider, ModelRequest, ModelStream, ProviderError, ProviderInfo, RetryNotice, StreamItem,
};
use bearagent_store::Store;
use std::sync::Arc;

pub struct TapeProvider {
    pub tape: Arc<Tape>,
    pub store: Arc<Store>,
    pub info: ProviderInfo,
}

/// What one call answers.
enum Answer {
    Items(Vec<Result<StreamItem, ProviderError>>),
    /// The run ended during the call (cancelled, out of time).
    Never,
}

/// What the loop records when the user cancels during a model call.
const CANCELLED_DURING_CALL: &str = "cancelled by the user during the model call";
/// How a failed compaction's reason begins.
const COMPACTION_FAILED: &str =
    "the context could not be compacted, so the run stops with its history intact: ";

impl ModelProvider for TapeProvider {
    fn info(&self) -> ProviderInfo {
        self.info.clone()
    }

    fn stream(&self, _request: ModelRequest) -> ModelStream {
        let in_call = matches!(
            self.tape.behind().map(|e| &e.payload),
            Some(EventPayload::ModelCallStarted { .. })
        );
        let answer = if in_call {
            self.model_answer()
        } else {
            self.summary_answer()
        };
        match answer {
            Answer::Items(items) => Box::pin(futures::stream::iter(items)),
            Answer::Never => Box::pin(futures::stream::pending()),
        }
    }
}

impl TapeProvider {
    /// The recorded retries, then the completion or failure.
    fn model_answer(&self) -> Answer {
        let mut items = Vec::new();
        let ahead = self.tape.ahead();
        for (i, event) in ahead.iter().enumerate() {
            match &event.payload {
                EventPayload::ModelCallRetryScheduled {
                    attempt,
                    delay_ms,
                    message,
                    usage,
                    discarded_partial,
                    ..
                } => items.push(Ok(StreamItem::Retrying(RetryNotice {
                    attempt: *attempt,
                    delay_ms: *delay_ms,
                    message: message.clone(),
                    discarded_partial: *discarded_partial,
                    usage: *usage,
                }))),
                EventPayload::ModelCallCompleted {
                    action,
                    usage,
                    stop_reason,
                    text,
                    ..
                } => {
                    // Calls the loop read from the model's text: the text
                    // is what the model said, and the loop reads it again.
                    let as_text;
                    let action = if read_from_text(&ahead[i + 1..]) {
                        as_text = Action::FinalAnswer(bearagent_kernel::FinalAnswer {
                            content: text.clone(),
                        });
                        &as_text
                    } else {
                        action
                    };
                    items.extend(completion(action, *usage, *stop_reason, text));
                    return Answer::Items(items);
                }
                EventPayload::ModelCallFailed { message, .. }
                    if message == CANCELLED_DURING_CALL =>
                {
                    self.tape.cancel.cancel();
                    return Answer::Never;
                }
                EventPayload::ModelCallFailed {
                    class,
                    message,
                    usage,
                    ..
                } => {
                    items.push(Err(recorded(*class, message, *usage)));
                    return Answer::Items(items);
                }
                // Seen beside the loop while the model answered.
                EventPayload::ExternalChangeObserved { .. } => {}
                // Out of wall time: the loop's timer ends the call.
                _ => return Answer::Never,
            }
        }
        Answer::Never
    }

    /// A compaction's summary, as recorded; or the failure that stopped it.
    fn summary_answer(&self) -> Answer {
        for event in self.tape.ahead() {
            match &event.payload {
                EventPayload::InstructionsLoaded { .. }
                | EventPayload::HookRan { .. }
                | EventPayload::ExternalChangeObserved { .. } => continue,
                EventPayload::ContextCompacted { summary, usage, .. } => {
                    let text = match self.store.get_blob(summary) {
                        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
                        _ => String::new(),
                    };
                    return Answer::Items(vec![
                        Ok(StreamItem::AnswerText(text)),
                        Ok(StreamItem::Completed {
                            usage: *usage,
                            stop_reason: StopReason::EndTurn,
                        }),
                    ]);
                }
                EventPayload::RunFailed { reason } => {
                    let why = reason.strip_prefix(COMPACTION_FAILED).unwrap_or(reason);
                    let class = ModelErrorClass::Provider { retryable: false };
                    return Answer::Items(vec![Err(recorded(class, why, TokenUsage::default()))]);
                }
                _ => break,
            }
        }
        Answer::Never
    }
}

/// The turn after a completion had its calls read from the model's text
/// (its first request says so).
fn read_from_text(after: &[bearagent_kernel::EventEnvelope]) -> bool {
    after
        .iter()
        .take_while(|e| !matches!(e.payload, EventPayload::ModelCallStarted { .. }))
        .find_map(|e| match &e.payload {
            EventPayload::ToolCallRequested {
                parsed_from_text, ..
            } => Some(parsed_from_text.is_some()),
            _ => None,
        })
        .unwrap_or(false)
}

fn recorded(class: ModelErrorClass, message: &str, usage: TokenUsage) -> ProviderError {
    ProviderError::Recorded {
        class,
        message: message.to_owned(),
        usage,
    }
}

/// The stream that gives back `action`: its text, then its calls.
fn completion(
    action: &Action,
    usage: TokenUsage,
    stop_reason: StopReason,
    text: &str,
) -> Vec<Result<StreamItem, ProviderError>> {
    let mut items = Vec::new();
    match action {
        Action::FinalAnswer(answer) => {
            items.push(Ok(StreamItem::AnswerText(answer.content.clone())))
        }
        Action::ToolCalls { calls } => {
            if !text.is_empty() {
                items.push(Ok(StreamItem::AnswerText(text.to_owned())));
            }
            items.extend(calls.iter().cloned().map(|c| Ok(StreamItem::ToolCall(c))));
        }
    }
    items.push(Ok(StreamItem::Completed { usage, stop_reason }));
    items
}
