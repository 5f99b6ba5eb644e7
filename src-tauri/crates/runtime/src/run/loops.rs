//! Loop detection in the run: a repeat of a call that went round in
//! circles is not executed and the model is told; if it asks once more,
//! the user decides whether the run may go on.

use super::asking::{ask, Asked};
use super::deps::{LoopDeps, RunGrants};
use super::loop_guard::{signature, LoopCheck};
use super::outcome::{fail, ToolStepEnd};
use super::recorder::Recorder;
use super::requested::Requested;
use crate::AppError;
use bearagent_kernel::{EventPayload, EventSeq, ToolCall};
use bearagent_tools::PreparedCall;

/// What the guard let through.
pub(crate) enum Guarded {
    /// Go on to the policy; `user_approval` is the user's "let it go on"
    /// (it answers a policy "ask" too, so nobody is asked twice).
    Proceed {
        user_approval: Option<EventSeq>,
    },
    Ended(ToolStepEnd),
}

/// Checks `prepared` against the run's recent calls before the policy:
/// a repeat is refused and recorded; a repeat after that asks the user,
/// whose "no" stops the run.
/// How the question about a repeating agent begins (front ends that
/// cannot ask say how to let it go on instead).
pub const LOOP_QUESTION: &str = "The agent keeps repeating";

pub(super) async fn guard(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    requested: &mut Requested,
    call: &ToolCall,
    prepared: &PreparedCall,
) -> Result<Guarded, AppError> {
    let signature = signature(prepared);
    match grants
        .loops
        .check(&signature, deps.profile.max_repeated_calls)
    {
        LoopCheck::Run => Ok(Guarded::Proceed {
            user_approval: None,
        }),
        LoopCheck::Refuse { repeats } => {
            let requested = requested.seq(rec)?;
            let seq = rec.record(
                Some(requested),
                EventPayload::LoopDetected {
                    call_id: call.call_id.clone(),
                    tool_name: call.tool_name.clone(),
                    repeats,
                },
            )?;
            grants.loops.refused(signature);
            let end = fail(
                rec,
                seq,
                &call.call_id,
                format!(
                    "not executed: you already called {} with exactly these arguments {repeats} \
                     times in a row and got the same result each time. Use that result or try \
                     something else; asking again will stop and ask the user.",
                    call.tool_name
                ),
            )?;
            Ok(Guarded::Ended(end))
        }
        LoopCheck::AskUser { repeats } => {
            let summary = format!(
                "{LOOP_QUESTION} {} ({repeats} identical calls, same result). \
                 Approve to let it continue, deny to stop the run.",
                prepared.summary()
            );
            let requested = requested.seq(rec)?;
            match ask(rec, deps, requested, call, &summary).await? {
                Asked::Granted { seq, .. } => {
                    grants.loops.user_continued();
                    Ok(Guarded::Proceed {
                        user_approval: Some(seq),
                    })
                }
                Asked::Denied { seq, reason, .. } => {
                    let why = reason.map_or_else(String::new, |r| format!(": {r}"));
                    let stopped = format!(
                        "stopped: the agent kept repeating {} and the user ended the run{why}",
                        prepared.summary()
                    );
                    fail(rec, seq, &call.call_id, stopped.clone())?;
                    rec.record(rec.last_seq(), EventPayload::RunFailed { reason: stopped })?;
                    Ok(Guarded::Ended(ToolStepEnd::RunEnded))
                }
                Asked::Cancelled => Ok(Guarded::Ended(ToolStepEnd::RunEnded)),
            }
        }
    }
}
