//! How a tool step ends, and the failed result every step records the
//! same way. Floor 1 of `run/`.

use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{CallId, EventPayload, EventSeq, ImageRef, ToolResult};

pub enum ToolStepEnd {
    Continue,
    RunEnded,
}

pub(crate) fn result(call_id: &CallId, content: String, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: call_id.clone(),
        content,
        is_error,
        images: Vec::new(),
    }
}

/// A room's result, bounded like every tool's (head kept, size recorded):
/// completed, or failed when it is an error.
pub(crate) fn record_bounded(
    rec: &mut Recorder,
    cause: EventSeq,
    call_id: &CallId,
    (mut content, is_error, images): (String, bool, Vec<ImageRef>),
    max: usize,
) -> Result<EventSeq, AppError> {
    let original_bytes = content.len() as u64;
    let truncated = content.len() > max;
    if truncated {
        content.truncate(bearagent_tools::floor_char_boundary(&content, max));
    }
    let mut result = result(call_id, content, is_error);
    result.images = images;
    let payload = if is_error {
        EventPayload::ToolCallFailed { result }
    } else {
        EventPayload::ToolCallCompleted {
            result,
            receipt: None,
            truncated,
            original_bytes,
        }
    };
    rec.record(Some(cause), payload)
}

/// The call failed before or instead of running: the model is told why.
pub(crate) fn fail(
    rec: &mut Recorder,
    cause: EventSeq,
    call_id: &CallId,
    message: String,
) -> Result<ToolStepEnd, AppError> {
    rec.record(
        Some(cause),
        EventPayload::ToolCallFailed {
            result: result(call_id, message, true),
        },
    )?;
    Ok(ToolStepEnd::Continue)
}

/// The user said no: the model gets the denial and the reason, if any.
pub(crate) fn denied(
    rec: &mut Recorder,
    seq: EventSeq,
    call_id: &CallId,
    reason: Option<String>,
) -> Result<ToolStepEnd, AppError> {
    let why = reason.map_or_else(String::new, |r| format!(": {r}"));
    fail(rec, seq, call_id, format!("the user denied this call{why}"))
}
