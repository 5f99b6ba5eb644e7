//! The scripted provider: outcomes in order, from a JSON file or built in
//! code. Deterministic and offline — for tests and for demo runs, always
//! labelled as scripted. Running out of outcomes is an error, never a final
//! answer.

use crate::{ModelProvider, ModelRequest, ModelStream, ProviderError, ProviderInfo, StreamItem};
use bearagent_kernel::{HistoryItem, TokenUsage};
use futures::StreamExt;
use serde::Deserialize;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Playing one step: the stream items it makes, and the sizes it reports.
mod play;
use play::{estimate_tokens, request_bytes, step_items};
/// One scripted turn, as the script file says it.
mod step;
pub use step::{ScriptFailure, ScriptStep, ScriptToolCall};

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ScriptFile {
    Steps(Vec<ScriptStep>),
    Wrapped {
        #[serde(default)]
        model: Option<String>,
        steps: Vec<ScriptStep>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read script {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("script {path} is not valid: {detail}")]
    Invalid { path: String, detail: String },
}

/// Requests a scripted provider keeps for tests to inspect. Bounded: a
/// long scripted run must not hold every conversation it sent (and a kept
/// request would make the loop copy its shared history).
pub const REMEMBERED_CALLS: usize = 64;

struct State {
    steps: Vec<ScriptStep>,
    next: usize,
    calls: Vec<ModelRequest>,
}

impl State {
    fn remember(&mut self, request: ModelRequest) {
        if self.calls.len() < REMEMBERED_CALLS {
            self.calls.push(request);
        }
    }
}

/// See the module docs. Cloning shares the script and the call record.
#[derive(Clone)]
pub struct ScriptedProvider {
    name: String,
    model: String,
    price: Option<bearagent_kernel::Price>,
    context_window: u64,
    max_output_tokens: Option<u32>,
    vision: bool,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for ScriptedProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedProvider")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl ScriptedProvider {
    pub fn new(steps: Vec<ScriptStep>) -> Self {
        Self {
            name: "script".into(),
            model: "scripted".into(),
            price: None,
            context_window: 200_000,
            max_output_tokens: None,
            vision: true,
            state: Arc::new(Mutex::new(State {
                steps,
                next: 0,
                calls: Vec::new(),
            })),
        }
    }

    /// Reads a script: either a JSON array of steps or
    /// `{"model": "...", "steps": [...]}`. Every step must have exactly one
    /// of `tool_call`, `tool_calls`, `final_answer`, `raw_text`, `error`,
    /// `truncate`.
    pub fn from_file(path: &Path) -> Result<Self, ScriptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: shown.clone(),
            source,
        })?;
        Self::from_json(&text).map_err(|detail| ScriptError::Invalid {
            path: shown,
            detail,
        })
    }

    pub fn from_json(text: &str) -> Result<Self, String> {
        let file: ScriptFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let (model, steps) = match file {
            ScriptFile::Steps(steps) => (None, steps),
            ScriptFile::Wrapped { model, steps } => (model, steps),
        };
        for (i, step) in steps.iter().enumerate() {
            check_step(i, step)?;
            if let Some(alt) = &step.after_error {
                check_step(i, alt)?;
            }
        }
        let mut provider = Self::new(steps);
        if let Some(model) = model {
            provider.model = model;
        }
        Ok(provider)
    }

    /// Marks the first `n` steps as already played (a resumed run).
    pub fn skip(&self, n: usize) {
        if let Ok(mut state) = self.state.lock() {
            state.next = state.next.max(n);
        }
    }

    /// Names the provider as runs record it (default "script").
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Names the model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Prices the script's (reported) usage, as a paid provider would.
    pub fn with_price(mut self, price: bearagent_kernel::Price) -> Self {
        self.price = Some(price);
        self
    }
}

fn check_step(i: usize, step: &ScriptStep) -> Result<(), String> {
    let kinds = [
        step.tool_call.is_some(),
        step.tool_calls.is_some(),
        step.final_answer.is_some(),
        step.raw_text.is_some(),
        step.error.is_some(),
        step.truncate,
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        return Err(format!(
            "step {}: exactly one of tool_call, tool_calls, final_answer, raw_text, error, truncate is required",
            i + 1
        ));
    }
    Ok(())
}

impl ScriptedProvider {
    /// A smaller window, so tests can make runs outgrow it.
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = tokens;
        self
    }

    /// Says it reads no images (it takes images by default, so flows with
    /// images run offline), as a text-only model's provider does.
    pub fn without_vision(mut self) -> Self {
        self.vision = false;
        self
    }

    /// Caps each call's output, as an HTTP provider's request does (what a
    /// cost limit reckons with before each call).
    pub fn with_max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// A scripted model answers a compaction request itself (no step is
    /// used): a handoff summary naming the goal and counting the work, so
    /// scripts need not know when compaction happens.
    fn compaction_reply(
        &self,
        request: ModelRequest,
        input_bytes: usize,
    ) -> Vec<Result<StreamItem, ProviderError>> {
        let goal = request
            .history
            .iter()
            .find_map(|i| match i {
                HistoryItem::Message(m) if m.role == bearagent_kernel::Role::User => {
                    Some(m.content.lines().next().unwrap_or("").to_owned())
                }
                _ => None,
            })
            .unwrap_or_default();
        let results = request
            .history
            .iter()
            .filter(|i| matches!(i, HistoryItem::ToolResult(_)))
            .count();
        let summary = format!(
            "Handoff summary (scripted): goal: {goal}. {results} tool results so far. Next: continue with the goal."
        );
        if let Ok(mut state) = self.state.lock() {
            state.remember(request);
        }
        let usage = TokenUsage::new(estimate_tokens(input_bytes), estimate_tokens(summary.len()));
        vec![
            Ok(StreamItem::TextDelta(summary)),
            Ok(StreamItem::Completed {
                usage,
                stop_reason: bearagent_kernel::StopReason::EndTurn,
            }),
        ]
    }

    /// The requests received so far, in order (the first
    /// [`REMEMBERED_CALLS`]).
    pub fn calls(&self) -> Vec<ModelRequest> {
        self.state
            .lock()
            .map(|s| s.calls.clone())
            .unwrap_or_default()
    }

    fn next_step(&self, request: ModelRequest) -> Result<(usize, ScriptStep), ProviderError> {
        let mut state = self.state.lock().map_err(|_| ProviderError::Provider {
            provider: "script".into(),
            message: "script state poisoned".into(),
            retryable: false,
            status: None,
        })?;
        let last_was_error = matches!(
            request.history.last(),
            Some(HistoryItem::ToolResult(r)) if r.is_error
        );
        state.remember(request);
        let index = state.next;
        let step = state
            .steps
            .get(index)
            .cloned()
            .ok_or(ProviderError::ScriptExhausted { calls: index })?;
        state.next += 1;
        let step = match (last_was_error, step.after_error) {
            (true, Some(alt)) => *alt,
            (_, _) => ScriptStep {
                after_error: None,
                ..step
            },
        };
        Ok((index, step))
    }
}

impl ModelProvider for ScriptedProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            name: self.name.clone(),
            model: self.model.clone(),
            scripted: true,
            price: self.price,
            max_output_tokens: self.max_output_tokens,
            context_window: self.context_window,
            vision: self.vision,
            learned: None,
        }
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let input_bytes = request_bytes(&request);
        if crate::window::is_compaction(&request) {
            return Box::pin(futures::stream::iter(
                self.compaction_reply(request, input_bytes),
            ));
        }
        let (delay_ms, items) = match self.next_step(request) {
            Ok((index, step)) => (step.delay_ms, step_items(index, step, input_bytes)),
            Err(e) => (0, vec![Err(e)]),
        };
        if delay_ms == 0 {
            return Box::pin(futures::stream::iter(items));
        }
        let delay = futures::stream::once(tokio::time::sleep(std::time::Duration::from_millis(
            delay_ms,
        )))
        .filter_map(|()| futures::future::ready(None));
        Box::pin(delay.chain(futures::stream::iter(items)))
    }
}

#[cfg(test)]
#[path = "scripted_tests.rs"]
mod tests;
