//! The pure reducer: folds a run's events into its projection. Impossible
//! transitions are rejected with an error and never applied.

use crate::budget::TokenUsage;
use crate::event::{EventEnvelope, EventPayload};
use crate::ids::EventSeq;
use std::collections::BTreeMap;

pub use crate::projection::{
    ModelCallPhase, PendingApproval, RunProjection, RunStatus, ToolCallPhase,
};
pub use error::ReduceError;

/// Folds a whole event list into a projection.
pub fn fold<'a>(
    events: impl IntoIterator<Item = &'a EventEnvelope>,
) -> Result<Option<RunProjection>, ReduceError> {
    let mut state: Option<RunProjection> = None;
    for event in events {
        state = Some(apply(state.as_ref(), event)?);
    }
    Ok(state)
}

/// Applies one event. On error the given state is untouched.
pub fn apply(
    state: Option<&RunProjection>,
    event: &EventEnvelope,
) -> Result<RunProjection, ReduceError> {
    let Some(state) = state else {
        return create(event);
    };
    if event.run_id != state.run_id {
        return Err(ReduceError::WrongRun {
            expected: state.run_id,
            got: event.run_id,
        });
    }
    let expected = state.last_seq.next();
    if event.seq != expected {
        return Err(ReduceError::OutOfOrder {
            expected,
            got: event.seq,
        });
    }
    let mut next = state.clone();
    next.last_seq = event.seq;
    // Reviewing a finished run's files later is not run activity: its
    // timing (and so its duration) stays as the run left it.
    if !event.payload.is_review() {
        next.updated_at = event.at;
    }
    Transition {
        state: &mut next,
        event,
    }
    .run()?;
    Ok(next)
}

fn create(event: &EventEnvelope) -> Result<RunProjection, ReduceError> {
    let EventPayload::RunCreated {
        goal,
        workspace_id,
        workspace_path,
        profile,
        budgets,
        approval_mode,
        provider,
        model,
        price,
        parent,
        delegated_by,
        ..
    } = &event.payload
    else {
        return Err(ReduceError::NotCreated {
            seq: event.seq,
            event: event.payload.type_name(),
        });
    };
    if event.seq != EventSeq::FIRST {
        return Err(ReduceError::OutOfOrder {
            expected: EventSeq::FIRST,
            got: event.seq,
        });
    }
    Ok(RunProjection {
        run_id: event.run_id,
        workspace_id: *workspace_id,
        workspace_path: workspace_path.clone(),
        goal: goal.clone(),
        profile: profile.clone(),
        budgets: *budgets,
        approval_mode: *approval_mode,
        provider: provider.clone(),
        model: model.clone(),
        status: RunStatus::Created,
        created_at: event.at,
        updated_at: event.at,
        last_seq: event.seq,
        model_calls: 0,
        tool_calls: 0,
        usage: TokenUsage::default(),
        price: *price,
        cost_micro_usd: price.map(|_| 0),
        pending_approval: None,
        last_error: None,
        final_answer: None,
        model_call: None,
        open_tool_calls: BTreeMap::new(),
        unknown_effects: 0,
        external_changes: 0,
        loops_detected: 0,
        parent: *parent,
        delegated_by: delegated_by.clone(),
        delegating: Default::default(),
        todo: Vec::new(),
    })
}

/// Why an event was refused.
mod error;
/// What each event type does to the state, one small function per type.
mod steps;
/// The guards an event must pass, and the dispatch of each event type.
mod transition;
use transition::Transition;

#[cfg(test)]
#[path = "reducer_tests.rs"]
mod tests;
