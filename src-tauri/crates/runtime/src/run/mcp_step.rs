//! An MCP tool call after policy and approval: sent to its server with a
//! timeout, progress streamed live like command output, the server's
//! result (or error) recorded as the tool's result. Floor 2 of `run/`.

use super::deps::{LoopDeps, RunGrants};
use super::loop_guard::signature;
use super::outcome::{record_bounded as record_result, ToolStepEnd};
use super::recorder::Recorder;
use crate::live::LiveEvent;
use crate::mcp::McpToolAdapter;
use crate::AppError;
use bearagent_kernel::{check_image, CallId, EventPayload, EventSeq, ImageRef, MAX_IMAGES};
use bearagent_mcp::McpError;
use bearagent_store::hash_bytes;
use bearagent_tools::AuthorizedCall;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Live progress shown per call before the rest is dropped (a chatty
/// server must not swamp the UI).
const LIVE_PROGRESS_CAP: usize = 256 * 1024;

pub(crate) async fn execute_mcp(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    call_id: CallId,
    tool: Arc<McpToolAdapter>,
    authorized: AuthorizedCall,
    cause: EventSeq,
) -> Result<ToolStepEnd, AppError> {
    let signature = signature(&authorized);
    let started = rec.record(
        Some(cause),
        EventPayload::ToolCallStarted {
            call_id: call_id.clone(),
        },
    )?;
    let live = rec.live().clone();
    let run_id = rec.run_id();
    let live_call = call_id.clone();
    let shown = AtomicUsize::new(0);
    let on_progress = move |progress: f64, total: Option<f64>, message: Option<String>| {
        let line = progress_line(progress, total, message.as_deref());
        if shown.fetch_add(line.len(), Ordering::Relaxed) >= LIVE_PROGRESS_CAP {
            return;
        }
        live.publish(LiveEvent::CommandOutput {
            run_id,
            call_id: live_call.clone(),
            text: line,
        });
    };
    let cancel = deps.cancel.child_token();
    let answer = tool.call(authorized, cancel, on_progress).await;
    let max = deps.executor.limits.max_output_bytes;
    let (content, is_error, images) = match answer {
        Ok(result) => (result.text, result.is_error, result.images),
        Err(e @ McpError::Cancelled { .. }) if deps.cancel.is_cancelled() => {
            record_result(
                rec,
                started,
                &call_id,
                (e.to_string(), true, Vec::new()),
                max,
            )?;
            rec.record_user_cancel()?;
            return Ok(ToolStepEnd::RunEnded);
        }
        Err(e) => {
            let gone = matches!(
                e,
                McpError::Exited { .. } | McpError::Transport { .. } | McpError::Protocol { .. }
            );
            if gone && grants.mcp_down.insert(tool.server().to_owned()) {
                rec.record(
                    Some(started),
                    EventPayload::McpServerUnavailable {
                        server: tool.server().to_owned(),
                        reason: e.to_string(),
                    },
                )?;
            }
            (e.to_string(), true, Vec::new())
        }
    };
    grants
        .loops
        .executed(signature, hash_bytes(content.as_bytes()));
    let images = stored_images(rec, tool.server(), images)?;
    record_result(rec, started, &call_id, (content, is_error, images), max)?;
    Ok(ToolStepEnd::Continue)
}

/// `[3/10] message` (or `[3] message` without a total), one line.
fn progress_line(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let count = match total {
        Some(total) => format!("[{progress}/{total}]"),
        None => format!("[{progress}]"),
    };
    match message {
        Some(m) if !m.trim().is_empty() => format!("{count} {}\n", m.trim()),
        _ => format!("{count}\n"),
    }
}

/// The images a server returned, stored as blobs: those a model could be
/// sent (a known type by magic bytes, within the size limit, at most
/// `MAX_IMAGES`). The others stay named in the result's text only.
fn stored_images(
    rec: &Recorder,
    server: &str,
    images: Vec<Vec<u8>>,
) -> Result<Vec<ImageRef>, AppError> {
    let mut refs = Vec::new();
    for (i, bytes) in images.into_iter().enumerate().take(MAX_IMAGES) {
        let name = format!("{server} image {}", i + 1);
        let Ok(media_type) = check_image(&name, &bytes) else {
            continue;
        };
        refs.push(ImageRef {
            blob: rec.store().put_blob(&bytes, rec.clock().now())?,
            media_type,
            bytes: bytes.len() as u64,
            name,
        });
    }
    Ok(refs)
}

#[cfg(test)]
mod tests {
    use super::progress_line;

    #[test]
    fn progress_reads_as_a_count_and_a_message() {
        assert_eq!(
            progress_line(3.0, Some(10.0), Some("step")),
            "[3/10] step\n"
        );
        assert_eq!(progress_line(1.5, None, None), "[1.5]\n");
        assert_eq!(progress_line(2.0, Some(4.0), Some("  ")), "[2/4]\n");
    }
}
