//! The serial AgentLoop, exactly DESIGN.md's lifecycle: budget check →
//! context → model call → (tool call → policy → approval → execute) … →
//! a terminal event. Every fact is committed before the loop acts on it.
//! The top floor of `run/`: it drives the steps below and nothing below
//! imports it.

use super::approvals::Decision;
use super::deps::{LoopDeps, RunGrants};
use super::outcome::ToolStepEnd;
use super::recorder::Recorder;
use super::stop::{remaining_wall_time, stop_if_needed};
use super::text_calls::{self, Reading, TextCallState};
use super::tool_step::{resume_decided, run_tool_call};
use super::{compaction, spend, task_step};
use crate::live::LiveEvent;
use crate::AppError;
use bearagent_kernel::{
    Action, BudgetKind, EventEnvelope, EventPayload, EventSeq, ModelErrorClass, NextCall,
    TextCallDialect, ToolCall,
};
use bearagent_providers::{
    complete, ModelProvider, ModelResponse, Progress, ProviderError, RetryNotice, ToolSchema,
};
use std::sync::{Arc, Mutex};

enum Step {
    Continue,
    Finished,
}

/// How a model call in flight ended.
enum CallEnd {
    Finished(Result<ModelResponse, ProviderError>),
    Cancelled,
    OutOfWallTime,
}

/// Where a loop starts: a new run, or a run resumed at its pending
/// approval with the user's decision.
pub enum LoopStart {
    Fresh,
    /// Boxed: a call's arguments make it far larger than `Fresh`.
    Resumed {
        asked: EventSeq,
        call: Box<ToolCall>,
        decision: Decision,
    },
}

/// Drives the run to a terminal state. Errors are store failures only:
/// everything the model or a tool does wrong is an event.
pub async fn drive(mut rec: Recorder, deps: LoopDeps, start: LoopStart) -> Result<(), AppError> {
    let mut grants = RunGrants {
        text: TextCallState::resumed(&rec, &deps.provider),
        ..RunGrants::default()
    };
    let mut invalid_outputs = 0u32;
    if let LoopStart::Resumed { .. } = &start {
        // Children that ran before the restart count in the budget checks.
        let earlier = task_step::resumed_ledger(&rec)?;
        if let Ok(mut ledger) = deps.ledger.lock() {
            *ledger = earlier;
        }
    }
    if let LoopStart::Resumed {
        asked,
        call,
        decision,
    } = start
    {
        let end = resume_decided(&mut rec, &deps, &mut grants, asked, *call, decision).await?;
        if matches!(end, ToolStepEnd::RunEnded) {
            return Ok(());
        }
        // The calls after it in the same turn had not started: run them,
        // so every call of the turn has its result before the next request.
        if let Some((completed, rest, dialect)) = unstarted_calls_of_last_turn(rec.events()) {
            for call in rest {
                if let ToolStepEnd::RunEnded =
                    run_tool_call(&mut rec, &deps, &mut grants, completed, call, dialect).await?
                {
                    task_step::abandon_tasks(&mut grants).await;
                    return Ok(());
                }
            }
        }
        task_step::finish_tasks(&mut rec, &deps, &mut grants).await?;
    }
    let mut offered = crate::mcp::OfferedTools::default();
    loop {
        // From committed events: a server that became unavailable is no
        // longer offered.
        let tools = offered.after(&deps.registry, rec.events());
        match model_step(&mut rec, &deps, tools, &mut grants, &mut invalid_outputs).await? {
            Step::Continue => {}
            Step::Finished => return Ok(()),
        }
    }
}

/// The last model turn's calls that were never requested (the run stopped
/// in the middle of the turn), with the seq of that turn's completion and
/// the dialect its calls were read from text in, if they were.
fn unstarted_calls_of_last_turn(
    events: &[EventEnvelope],
) -> Option<(EventSeq, Vec<ToolCall>, Option<TextCallDialect>)> {
    let (at, completed, action) = events.iter().enumerate().rev().find_map(|(i, e)| {
        if let EventPayload::ModelCallCompleted { action, .. } = &e.payload {
            Some((i, e.seq, action))
        } else {
            None
        }
    })?;
    let requested: std::collections::BTreeSet<&str> = events[at..]
        .iter()
        .filter_map(|e| {
            if let EventPayload::ToolCallRequested { call, .. } = &e.payload {
                Some(call.call_id.as_str())
            } else {
                None
            }
        })
        .collect();
    let rest: Vec<_> = action
        .calls()
        .iter()
        .filter(|c| !requested.contains(c.call_id.as_str()))
        .cloned()
        .collect();
    Some((completed, rest, text_calls::dialect_of_turn(&events[at..])))
}

async fn model_step(
    rec: &mut Recorder,
    deps: &LoopDeps,
    tools: &[ToolSchema],
    grants: &mut RunGrants,
    invalid_outputs: &mut u32,
) -> Result<Step, AppError> {
    if stop_if_needed(rec, deps, NextCall::Model)? {
        return Ok(Step::Finished);
    }
    let built =
        compaction::build_request(rec, deps, tools, rec.events(), Some(&mut grants.context))?;
    let Some((built, estimated_tokens)) =
        compaction::fit_window(rec, deps, grants, tools, built).await?
    else {
        return Ok(Step::Finished);
    };
    let info = deps.provider.info();
    // Usage is judged for a declared local server's runs (`learned` on
    // RunCreated), never for images, whose tokens each server counts its way.
    let judged =
        compaction::judges_usage(rec.events()) && built.request.image_refs().next().is_none();
    let window = info.context_window;
    let children = deps.ledger.lock().map(|l| *l).unwrap_or_default();
    if spend::cost_budget_blocks(rec, &info, built.bytes, &children) {
        rec.record(
            rec.last_seq(),
            EventPayload::BudgetExhausted {
                which: BudgetKind::Cost,
            },
        )?;
        return Ok(Step::Finished);
    }
    // Nothing happens between asking and starting the call: one commit.
    let started = rec.record_chain(
        rec.last_seq(),
        vec![
            EventPayload::ModelCallRequested {
                context_version: built.version.to_owned(),
                context_bytes: built.bytes,
                estimated_tokens: Some(estimated_tokens),
                context_window: Some(info.context_window),
                request_digest: Some(built.digest.clone()),
            },
            EventPayload::ModelCallStarted {
                provider: info.name,
                model: info.model,
            },
        ],
    )?;
    let provider = grants.text.provider(&deps.provider);
    let outcome = match call_model(rec, deps, provider, started, built.request).await? {
        Some(outcome) => outcome,
        None => return Ok(Step::Finished),
    };
    let cut = |r: &ModelResponse| compaction::silent_cut(estimated_tokens, r.usage.input, window);
    match outcome {
        Ok(response) => match cut(&response).filter(|_| judged) {
            Some(why) => cut_off(rec, started, response.usage, why),
            None => took(rec, deps, tools, grants, started, response, invalid_outputs).await,
        },
        Err(error) => output_failed(rec, deps, grants, started, error, invalid_outputs),
    }
}

/// A reply that could not be used: recorded, fed back or the run's end.
/// In native mode each such reply is a strike toward JSON text — whether
/// the adapter refused it or it was a text call that cannot be one — read
/// the same way when a replay serves the recorded failure.
fn output_failed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    started: EventSeq,
    error: ProviderError,
    invalid_outputs: &mut u32,
) -> Result<Step, AppError> {
    let invalid = error.class() == ModelErrorClass::InvalidOutput;
    let step = call_failed(rec, deps, started, error, invalid_outputs)?;
    if invalid && matches!(step, Step::Continue) {
        text_calls::strike(rec, &deps.provider, &mut grants.text)?;
    }
    Ok(step)
}

/// A reply is taken as it came, as the calls its text meant, or refused
/// as a text call that cannot be one (invalid output, never an answer).
async fn took(
    rec: &mut Recorder,
    deps: &LoopDeps,
    tools: &[ToolSchema],
    grants: &mut RunGrants,
    started: EventSeq,
    response: ModelResponse,
    invalid_outputs: &mut u32,
) -> Result<Step, AppError> {
    match text_calls::read_reply(rec.events(), started, response, tools) {
        Reading::AsIs(response) => {
            *invalid_outputs = 0;
            answered(rec, deps, grants, started, response, None).await
        }
        // A call read from text works: the run stays in its mode (switching
        // protocol mid-run confused a 0.5B model that was doing fine).
        Reading::FromText(response, dialect) => {
            *invalid_outputs = 0;
            answered(rec, deps, grants, started, response, Some(dialect)).await
        }
        Reading::Refused(error) => {
            output_failed(rec, deps, grants, started, error, invalid_outputs)
        }
    }
}

/// Streams the call (text deltas live), racing cancellation and the wall
/// time; records its retries. `None` when the run ended during the call.
async fn call_model(
    rec: &mut Recorder,
    deps: &LoopDeps,
    provider: Arc<dyn ModelProvider>,
    started: EventSeq,
    request: bearagent_providers::ModelRequest,
) -> Result<Option<Result<ModelResponse, ProviderError>>, AppError> {
    let run_id = rec.run_id();
    let live = rec.live().clone();
    let retries: Arc<Mutex<Vec<RetryNotice>>> = Arc::default();
    let seen_retries = retries.clone();
    let call = complete(provider.as_ref(), request, move |progress| match progress {
        Progress::TextDelta(delta) => live.publish(LiveEvent::TextDelta {
            run_id,
            model_call: started,
            text: delta.to_owned(),
        }),
        Progress::Retrying(notice) => {
            if notice.discarded_partial {
                live.publish(LiveEvent::TextDiscarded {
                    run_id,
                    model_call: started,
                });
            }
            if let Ok(mut r) = seen_retries.lock() {
                r.push(notice.clone());
            }
        }
    });
    let outcome = tokio::select! {
        r = call => CallEnd::Finished(r),
        _ = deps.cancel.cancelled() => CallEnd::Cancelled,
        _ = tokio::time::sleep(remaining_wall_time(rec)) => CallEnd::OutOfWallTime,
    };
    // Retries happened inside the call; they are recorded before its end.
    let notices = retries
        .lock()
        .map(|mut r| std::mem::take(&mut *r))
        .unwrap_or_default();
    record_retries(rec, started, notices)?;
    match outcome {
        CallEnd::Finished(outcome) => Ok(Some(outcome)),
        CallEnd::Cancelled => {
            rec.record(
                Some(started),
                EventPayload::ModelCallFailed {
                    class: ModelErrorClass::Provider { retryable: false },
                    message: "cancelled by the user during the model call".into(),
                    usage: Default::default(),
                    cost_micro_usd: spend::cost_of(rec, Default::default()),
                },
            )?;
            rec.record_user_cancel()?;
            Ok(None)
        }
        // The budget ran out, not the provider: the call is abandoned and
        // the run ends out of wall time, with no invented provider error.
        CallEnd::OutOfWallTime => {
            rec.record(
                Some(started),
                EventPayload::BudgetExhausted {
                    which: BudgetKind::WallTime,
                },
            )?;
            Ok(None)
        }
    }
}

fn record_retries(
    rec: &mut Recorder,
    started: EventSeq,
    notices: Vec<RetryNotice>,
) -> Result<(), AppError> {
    for notice in notices {
        rec.record(
            Some(started),
            EventPayload::ModelCallRetryScheduled {
                attempt: notice.attempt,
                delay_ms: notice.delay_ms,
                class: ModelErrorClass::Provider { retryable: true },
                message: notice.message,
                cost_micro_usd: spend::cost_of(rec, notice.usage),
                usage: notice.usage,
                discarded_partial: notice.discarded_partial,
            },
        )?;
    }
    Ok(())
}

/// The model answered: the run succeeds, or each call of the turn walks
/// the whole tool path in order (a denial or an error of one does not skip
/// the others' decisions).
async fn answered(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    started: EventSeq,
    response: ModelResponse,
    parsed_from_text: Option<TextCallDialect>,
) -> Result<Step, AppError> {
    let completed = rec.record(
        Some(started),
        EventPayload::ModelCallCompleted {
            action: response.action.clone(),
            usage: response.usage,
            stop_reason: response.stop_reason,
            text: response.text.clone(),
            cost_micro_usd: spend::cost_of(rec, response.usage),
        },
    )?;
    match response.action {
        Action::FinalAnswer(answer) => {
            if super::hook_step::stop(rec, deps, grants, completed).await? {
                return Ok(Step::Continue);
            }
            rec.record(
                Some(completed),
                EventPayload::RunSucceeded {
                    answer: answer.content,
                },
            )?;
            Ok(Step::Finished)
        }
        Action::ToolCalls { calls } => {
            grants.rest_of_turn = None;
            for call in calls {
                if let ToolStepEnd::RunEnded =
                    run_tool_call(rec, deps, grants, completed, call, parsed_from_text).await?
                {
                    task_step::abandon_tasks(grants).await;
                    return Ok(Step::Finished);
                }
            }
            // The turn's children ran side by side; their results now.
            task_step::finish_tasks(rec, deps, grants).await?;
            Ok(Step::Continue)
        }
    }
}

/// The call failed: an invalid output is retried up to the profile's
/// limit; anything else fails the run naming the class.
/// The call's reply is not trusted (the server cut the prompt): its
/// tokens are counted, and the run fails naming why.
fn cut_off(
    rec: &mut Recorder,
    started: EventSeq,
    usage: bearagent_kernel::TokenUsage,
    why: String,
) -> Result<Step, AppError> {
    let failed = rec.record(
        Some(started),
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::Provider { retryable: false },
            message: why.clone(),
            usage,
            cost_micro_usd: spend::cost_of(rec, usage),
        },
    )?;
    rec.record(Some(failed), EventPayload::RunFailed { reason: why })?;
    Ok(Step::Finished)
}

fn call_failed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    started: EventSeq,
    error: ProviderError,
    invalid_outputs: &mut u32,
) -> Result<Step, AppError> {
    let failed = rec.record(
        Some(started),
        EventPayload::ModelCallFailed {
            class: error.class(),
            message: error.to_string(),
            usage: error.usage(),
            cost_micro_usd: spend::cost_of(rec, error.usage()),
        },
    )?;
    if error.class() == ModelErrorClass::InvalidOutput {
        *invalid_outputs += 1;
        if *invalid_outputs <= deps.profile.max_invalid_outputs {
            return Ok(Step::Continue);
        }
    }
    let reason = match error.class() {
        ModelErrorClass::InvalidOutput => format!(
            "invalid model output {} times in a row: {error}",
            invalid_outputs
        ),
        ModelErrorClass::Provider { .. } => format!("provider error: {error}"),
        ModelErrorClass::ScriptExhausted => format!("script exhausted: {error}"),
        ModelErrorClass::TruncatedStream => format!("truncated stream: {error}"),
    };
    rec.record(Some(failed), EventPayload::RunFailed { reason })?;
    Ok(Step::Finished)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::at;
    use bearagent_kernel::{RunId, StopReason};
    use serde_json::json;

    fn envelope(seq: u64, payload: EventPayload) -> EventEnvelope {
        bearagent_kernel::NewEvent::new(at(0), None, payload)
            .into_envelope(RunId::new(), EventSeq(seq))
    }

    #[test]
    fn after_a_resume_the_calls_of_the_turn_that_never_started_are_found() {
        let call = |id: &str| ToolCall::new(id, "write_file", json!({"path": id})).unwrap();
        let events = vec![
            envelope(
                5,
                EventPayload::ModelCallCompleted {
                    action: Action::tool_calls(vec![call("a"), call("b"), call("c")]).unwrap(),
                    usage: Default::default(),
                    stop_reason: StopReason::ToolUse,
                    text: String::new(),
                    cost_micro_usd: None,
                },
            ),
            envelope(
                6,
                EventPayload::ToolCallRequested {
                    call: call("a"),
                    parsed_from_text: None,
                },
            ),
        ];
        let (completed, rest, dialect) = unstarted_calls_of_last_turn(&events).unwrap();
        assert_eq!(dialect, None);
        assert_eq!(completed, EventSeq(5));
        let ids: Vec<&str> = rest.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        assert!(unstarted_calls_of_last_turn(&events[1..]).is_none());
    }
}
