//! The child runs a run's `task` calls start (delegation): a child's id
//! is derived from its parent's and the call's, so the record of the
//! parent names its children, started or not.

use crate::{DelegatedBy, EventEnvelope, EventPayload, RunId, ToolCall, TASK_TOOL};

/// The `task` calls among `run`'s `events`, in the order it asked for
/// them, each with the id of the child it starts.
pub fn task_children(
    run: RunId,
    events: &[EventEnvelope],
) -> impl Iterator<Item = (&ToolCall, RunId)> {
    events.iter().filter_map(move |e| match &e.payload {
        EventPayload::ToolCallRequested { call, .. } if call.tool_name.as_str() == TASK_TOOL => {
            Some((call, DelegatedBy::child_run_id(run, &call.call_id)))
        }
        _ => None,
    })
}
