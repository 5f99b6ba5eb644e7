//! The bounded executor: runs a prepared call exactly once on a blocking
//! thread, inside a timeout, racing cancellation, and bounds the output.

use crate::authorization::AuthorizedCall;
use crate::spec::WorkspaceTool;
use crate::text::floor_char_boundary;
use crate::workspace::WorkspaceRoot;
use serde::Serialize;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long the executor waits, after triggering the tool's token on timeout
/// or cancel, for the tool to return before reporting anyway. Tools that poll
/// their token stop well within it, so in the normal case nothing is still
/// running when the outcome is reported.
const STOP_GRACE: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutorLimits {
    pub timeout: Duration,
    pub max_output_bytes: usize,
}

impl Default for ExecutorLimits {
    /// 30 s, 64 KiB.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_output_bytes: 64 * 1024,
        }
    }
}

/// What one execution produced, already bounded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecOutcome {
    pub content: String,
    pub is_error: bool,
    /// The content was cut to `max_output_bytes` (head kept).
    pub truncated: bool,
    /// Size of the full content before any cut.
    pub original_bytes: u64,
    pub timed_out: bool,
    pub cancelled: bool,
}

impl ExecOutcome {
    fn bounded(content: String, is_error: bool, max: usize) -> Self {
        let original_bytes = content.len() as u64;
        let mut content = content;
        let truncated = content.len() > max;
        if truncated {
            let cut = floor_char_boundary(&content, max);
            content.truncate(cut);
        }
        Self {
            content,
            is_error,
            truncated,
            original_bytes,
            timed_out: false,
            cancelled: false,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Executor {
    pub limits: ExecutorLimits,
}

enum Stop {
    TimedOut,
    Cancelled,
}

impl Executor {
    pub fn new(limits: ExecutorLimits) -> Self {
        Self { limits }
    }

    /// Run `call` once. Never panics and never propagates a tool's panic:
    /// every failure is an error outcome. Only an authorised call gets here.
    pub async fn execute(
        &self,
        tool: Arc<dyn WorkspaceTool>,
        call: AuthorizedCall,
        ws: WorkspaceRoot,
        cancel: CancellationToken,
    ) -> ExecOutcome {
        let max = self.limits.max_output_bytes;
        if *call.tool() != tool.spec().name {
            return ExecOutcome::bounded(
                format!(
                    "{} cannot execute a call authorised for {}",
                    tool.spec().name,
                    call.tool()
                ),
                true,
                max,
            );
        }
        if cancel.is_cancelled() {
            // Cancelled before it started: the tool never runs.
            return stopped(Stop::Cancelled, self.limits.timeout, max);
        }
        let tool_token = cancel.child_token();
        let token_for_tool = tool_token.clone();
        let mut handle =
            tokio::task::spawn_blocking(move || tool.execute(&call, &ws, &token_for_tool));

        let stop = tokio::select! {
            biased;
            () = cancel.cancelled() => Stop::Cancelled,
            joined = tokio::time::timeout(self.limits.timeout, &mut handle) => match joined {
                Ok(Ok(Ok(output))) => return ExecOutcome::bounded(output.content, false, max),
                Ok(Ok(Err(err))) => return ExecOutcome::bounded(err.to_string(), true, max),
                Ok(Err(join)) => return ExecOutcome::bounded(join_failure(join), true, max),
                Err(_elapsed) => Stop::TimedOut,
            },
        };

        tool_token.cancel();
        // Give the tool a moment to notice its token and return, so that in
        // the normal case its thread is done before the outcome is reported.
        let _ = tokio::time::timeout(STOP_GRACE, handle).await;
        stopped(stop, self.limits.timeout, max)
    }
}

fn stopped(stop: Stop, timeout: Duration, max: usize) -> ExecOutcome {
    let (message, timed_out) = match stop {
        Stop::TimedOut => (
            format!("tool call timed out after {}", human_duration(timeout)),
            true,
        ),
        Stop::Cancelled => ("tool call cancelled".to_owned(), false),
    };
    let mut outcome = ExecOutcome::bounded(message, true, max);
    outcome.timed_out = timed_out;
    outcome.cancelled = !timed_out;
    outcome
}

fn join_failure(err: tokio::task::JoinError) -> String {
    if err.is_panic() {
        format!(
            "tool panicked: {}",
            panic_message(err.into_panic().as_ref())
        )
    } else {
        "tool task was aborted".to_owned()
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
#[path = "executor_tests.rs"]
mod tests;
