//! A tool call in a replay, where nothing executes. Its arguments are
//! prepared on the replay's stage; the workspace facts the stage cannot
//! know are taken from the record. Its room is the recorded one: the loop
//! checks the write conflict and starts the call as it does now, then takes
//! the room's events (effects, output, result) from the record and learns
//! from them what it learns live. Floor 2 of `run/`, beside the live rooms.

use super::deps::{LoopDeps, Route, RunGrants};
use super::outcome::{fail, ToolStepEnd};
use super::receipts::{conflict_with_seen, remember_command_change, remember_seen};
use super::recorder::Recorder;
use super::requested::StartAfter;
use crate::replay::Tape;
use crate::AppError;
use bearagent_kernel::{CallId, EventPayload as P, ToolCall};
use bearagent_tools::{AuthorizedCall, PreparedCall};

/// The call prepared on the stage (the recorded folder's absolute paths
/// moved there, messages naming the recorded folder). Where the record
/// says a path was refused that the stage lets through or refuses for
/// another reason (a symlink out, a file's mode: what the stage cannot
/// know), the recorded refusal is the workspace's fact and is taken.
pub(super) fn prepare(
    tape: &Tape,
    deps: &LoopDeps,
    route: &Route,
    call: &ToolCall,
) -> Result<PreparedCall, String> {
    let Some(stage) = tape.stage() else {
        return (route.tool().prepare(&call.arguments, &deps.workspace))
            .map_err(|e| format!("invalid arguments: {e}"));
    };
    let outcome = route
        .tool()
        .prepare(&stage.rebased(&call.arguments), &deps.workspace)
        .map_err(|e| stage.as_recorded(&format!("invalid arguments: {e}")));
    match (outcome, recorded_path_refusal(tape, call)) {
        (Ok(_), Some(recorded)) => Err(recorded),
        (Err(why), Some(recorded)) if is_path_refusal(&why) => Err(recorded),
        (outcome, _) => outcome,
    }
}

/// The recorded refusal of this call's path (or working folder), if the
/// record goes on with one.
fn recorded_path_refusal(tape: &Tape, call: &ToolCall) -> Option<String> {
    let mut ahead = tape.ahead().iter().map(|e| &e.payload);
    let next = match ahead.next()? {
        P::ToolCallRequested { call: c, .. } if c.call_id == call.call_id => ahead.next()?,
        other => other,
    };
    match next {
        P::ToolCallFailed { result }
            if result.call_id == call.call_id && is_path_refusal(&result.content) =>
        {
            Some(result.content.clone())
        }
        _ => None,
    }
}

/// A refusal of the path (or working folder) a call names: what the
/// workspace held decided it.
fn is_path_refusal(why: &str) -> bool {
    crate::replay::PATH_ARGS
        .iter()
        .any(|name| why.starts_with(&format!("invalid arguments: argument `{name}`: ")))
}

/// The call's room in a replay: a file tool's write is checked against
/// what the run has seen (on the stage) as the live room checks it, the
/// call starts, then the recorded room is taken event by event.
pub(super) fn replay_room(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    route: &Route,
    call_id: &CallId,
    authorized: &AuthorizedCall,
    mut after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    let file_tool = matches!(route, Route::Workspace(_));
    if let (true, Some(target)) = (file_tool, authorized.prepared().write_target()) {
        if let Some(conflict) = conflict_with_seen(grants, target) {
            let cause = after.seq(rec)?;
            return fail(rec, cause, call_id, conflict);
        }
    }
    after.record_start(rec, call_id)?;
    let room = Room {
        deps,
        call_id,
        authorized,
        file_tool,
    };
    let mut ended = false;
    while let Some(next) = rec
        .tape()
        .and_then(|t| t.ahead().first())
        .map(|e| e.payload.clone())
        .filter(|p| room.holds(p))
    {
        ended |= next.is_terminal();
        room.learn(grants, &next);
        rec.copy_recorded()?;
    }
    Ok(if ended {
        ToolStepEnd::RunEnded
    } else {
        ToolStepEnd::Continue
    })
}

/// One call's recorded room.
struct Room<'a> {
    deps: &'a LoopDeps,
    call_id: &'a CallId,
    authorized: &'a AuthorizedCall,
    file_tool: bool,
}

impl Room<'_> {
    /// Whether the recorded event is the room's: its effects, the command's
    /// start and end, the call's own result, or the run's end inside it.
    fn holds(&self, payload: &P) -> bool {
        match payload {
            P::EffectIntended { .. }
            | P::CommandStarted { .. }
            | P::CommandFinished { .. }
            | P::ArtifactRecorded { .. }
            | P::EffectVerified { .. }
            | P::EffectUnknown { .. }
            | P::ExternalChangeObserved { .. }
            | P::TodoUpdated { .. }
            | P::McpServerUnavailable { .. }
            | P::WebFetched { .. }
            | P::WebFetchFailed { .. }
            | P::RunCancelled { .. }
            | P::RunFailed { .. } => true,
            P::ToolCallCompleted { result, .. } | P::ToolCallFailed { result } => {
                &result.call_id == self.call_id
            }
            _ => false,
        }
    }

    /// What the loop learns live from the event: the loop guard the call's
    /// result, the versions seen a command's changes and a file tool's
    /// success (the version its receipt, or for a read the stage, holds).
    fn learn(&self, grants: &mut RunGrants, payload: &P) {
        match payload {
            P::ArtifactRecorded {
                path, after_hash, ..
            } if !self.file_tool => remember_command_change(grants, path, after_hash.as_ref()),
            P::ToolCallCompleted { result, .. } | P::ToolCallFailed { result } => {
                let signature = super::loop_guard::signature(self.authorized);
                let hash = bearagent_store::hash_bytes(result.content.as_bytes());
                grants.loops.executed(signature, hash);
                if let (true, P::ToolCallCompleted { receipt, .. }) = (self.file_tool, payload) {
                    let prepared = self.authorized.prepared();
                    remember_seen(grants, prepared, receipt.as_ref(), &self.deps.workspace);
                }
            }
            _ => {}
        }
    }
}
