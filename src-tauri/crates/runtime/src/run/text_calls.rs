//! A reply that printed its tool call as text (small local models often
//! do) is the call the model meant, not a final answer; text that looks
//! like a call but cannot be one is invalid output, fed back. A model that
//! keeps writing calls that cannot be used is spoken to in JSON-text mode
//! for the rest of the run; one whose text calls parse stays in its mode.
//! Floor 1 of `run/`: the driver asks it about each reply.
//!
//! Every decision is read from committed events (the mode the run started
//! in, a switch), so a resumed or replayed run decides the same.

use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{
    Action, EventEnvelope, EventPayload, EventSeq, StopReason, TextCallDialect, ToolCall, ToolMode,
};
use bearagent_providers::{
    find_text_calls, json_text_provider, ModelProvider, ModelResponse, ProviderError, TextCalls,
    ToolSchema,
};
use std::sync::Arc;

/// The key of `RunCreated.config_versions` naming the tool mode the run
/// started in (`context::recorded_versions`). A run recorded without it
/// predates reading text calls: its replies are taken as they were.
const TOOL_MODE_KEY: &str = "tool_mode";

/// Unusable replies in native mode (text calls that cannot be one, calls
/// the adapter refused) before the run switches to JSON text.
const STRIKES_BEFORE_SWITCH: u32 = 2;

/// How much of a refused reply its error keeps.
const MAX_KEPT_REPLY: usize = 1024;

/// The loop's memory of text calls: how many so far (in this process's
/// part of the run), and the provider spoken to once the run switched.
#[derive(Default)]
pub(crate) struct TextCallState {
    strikes: u32,
    switched: Option<Arc<dyn ModelProvider>>,
}

impl TextCallState {
    /// The provider the next model call goes to.
    pub(crate) fn provider(&self, native: &Arc<dyn ModelProvider>) -> Arc<dyn ModelProvider> {
        self.switched.clone().unwrap_or_else(|| native.clone())
    }

    /// A run that switched before (a resume) goes on in JSON text.
    pub(crate) fn resumed(rec: &Recorder, native: &Arc<dyn ModelProvider>) -> Self {
        let mut state = Self::default();
        if mode_now(rec.events()) == Some(ToolMode::JsonText)
            && started_in(rec.events()) == Some(ToolMode::Native)
        {
            state.switched = Some(in_json_text(rec, native));
        }
        state
    }
}

/// The mode the run was started in, if it was recorded.
fn started_in(events: &[EventEnvelope]) -> Option<ToolMode> {
    match &events.first()?.payload {
        EventPayload::RunCreated {
            config_versions, ..
        } => config_versions.get(TOOL_MODE_KEY)?.parse().ok(),
        _ => None,
    }
}

/// The mode the run is in now: as started, or as last switched.
fn mode_now(events: &[EventEnvelope]) -> Option<ToolMode> {
    let switched = events.iter().rev().find_map(|e| match &e.payload {
        EventPayload::ToolModeSwitched { to, .. } => Some(*to),
        _ => None,
    });
    switched.or_else(|| started_in(events))
}

/// The provider in JSON-text mode. A replay's model gives back what was
/// recorded, already decoded: it is not wrapped.
fn in_json_text(rec: &Recorder, native: &Arc<dyn ModelProvider>) -> Arc<dyn ModelProvider> {
    if rec.tape().is_some() || native.tool_mode() == ToolMode::JsonText {
        native.clone()
    } else {
        json_text_provider(native.clone())
    }
}

/// A reply as the loop takes it.
pub(crate) enum Reading {
    /// As it came: native calls, or an answer with no call in its text.
    AsIs(ModelResponse),
    /// The calls its text meant, read in this dialect.
    FromText(ModelResponse, TextCallDialect),
    /// Its text looks like a tool call but cannot be one: invalid output.
    Refused(ProviderError),
}

/// Reads an answer's text for the calls it meant. In JSON-text mode the
/// adapter parsed the reply already: what is read here is the content of
/// a `final_answer` (a small model wraps its call in one). A run recorded
/// without its tool mode predates this: its answers stay answers.
pub(crate) fn read_reply(
    events: &[EventEnvelope],
    started: EventSeq,
    response: ModelResponse,
    tools: &[ToolSchema],
) -> Reading {
    // Native calls are taken as they came: the mode (a scan of the run
    // from its end) is looked up only for an answer.
    let content = match &response.action {
        Action::FinalAnswer(answer) => answer.content.clone(),
        Action::ToolCalls { .. } => return Reading::AsIs(response),
    };
    let Some(mode) = mode_now(events) else {
        return Reading::AsIs(response);
    };
    let usage = response.usage;
    let how = match mode {
        ToolMode::Native => "Call the tool natively, or answer in plain text",
        ToolMode::JsonText => {
            "Write a tool call as a {\"type\":\"tool_call\",…} object, not inside a final answer"
        }
    };
    let refused = |message: String| {
        Reading::Refused(ProviderError::InvalidOutput {
            message: format!("{message}. Your reply was: {:?}. {how}", capped(&content)),
            usage,
        })
    };
    let calls = match find_text_calls(&content, tools) {
        TextCalls::None if repeats_the_goal(events, &content) => {
            return refused("your reply only repeats the task; do the task".into())
        }
        TextCalls::None => return Reading::AsIs(response),
        TextCalls::Invalid { dialect, error } => {
            return refused(format!("{error} (written as {})", dialect.label()))
        }
        TextCalls::Calls(calls) => calls,
    };
    let Some(dialect) = calls.first().map(|c| c.dialect) else {
        return Reading::AsIs(response);
    };
    if response.stop_reason == StopReason::MaxTokens {
        return refused("the reply hit the token limit inside a tool call".into());
    }
    let calls: Result<Vec<ToolCall>, _> = calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            // Ids from the reply's place in the run: a replay makes the same.
            let id = format!("text_{}_{}", started.0, i + 1);
            ToolCall::new(id, c.name, serde_json::Value::Object(c.arguments))
        })
        .collect();
    match calls.and_then(Action::tool_calls) {
        Ok(action) => Reading::FromText(ModelResponse { action, ..response }, dialect),
        Err(e) => refused(e.to_string()),
    }
}

/// Whether an answer is the run's goal said back (qwen2.5-coder 1.5B
/// answered "Create a Python script hello.py …" to that very task): never
/// an answer, so it is re-asked like any unusable reply.
fn repeats_the_goal(events: &[EventEnvelope], answer: &str) -> bool {
    let normal = |t: &str| {
        let words: Vec<String> = t.split_whitespace().map(str::to_lowercase).collect();
        words.join(" ").trim_end_matches(['.', '!']).to_owned()
    };
    match events.first().map(|e| &e.payload) {
        Some(EventPayload::RunCreated { goal, .. }) => {
            !answer.trim().is_empty() && normal(goal) == normal(answer)
        }
        _ => false,
    }
}

fn capped(text: &str) -> &str {
    if text.len() <= MAX_KEPT_REPLY {
        return text;
    }
    let mut cut = MAX_KEPT_REPLY;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// A reply in native mode could not be used: after enough of them, the
/// rest of the run speaks JSON text (recorded first).
pub(crate) fn strike(
    rec: &mut Recorder,
    native: &Arc<dyn ModelProvider>,
    state: &mut TextCallState,
) -> Result<(), AppError> {
    state.strikes += 1;
    if state.strikes < STRIKES_BEFORE_SWITCH || mode_now(rec.events()) != Some(ToolMode::Native) {
        return Ok(());
    }
    rec.record(
        rec.last_seq(),
        EventPayload::ToolModeSwitched {
            from: ToolMode::Native,
            to: ToolMode::JsonText,
            reason: format!(
                "{} of the model's replies could not be used as native or text tool calls",
                state.strikes
            ),
        },
    )?;
    state.switched = Some(in_json_text(rec, native));
    Ok(())
}

/// The dialect a turn's calls were read in, from its recorded requests
/// (a resumed turn's calls not yet requested are read the same way).
pub(crate) fn dialect_of_turn(events: &[EventEnvelope]) -> Option<TextCallDialect> {
    events.iter().find_map(|e| match &e.payload {
        EventPayload::ToolCallRequested {
            parsed_from_text, ..
        } => *parsed_from_text,
        _ => None,
    })
}
