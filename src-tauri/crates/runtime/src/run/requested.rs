//! A tool call's request, recorded lazily: when nothing stands between the
//! request and the call's start, both are one commit (one fsync less a
//! step); anything else recorded for the call first records the request
//! (asking the user, here, is one of those). Floor 1 of `run/`.

use super::asking::{ask, Asked};
use super::deps::LoopDeps;
use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{CallId, EventPayload, EventSeq, TextCallDialect, ToolCall};

/// A call's `ToolCallRequested`, recorded only once something must follow
/// it: alone before any other event of the call, or in one commit with the
/// call's start when nothing stood between them (policy allowed it).
pub(crate) struct Requested {
    cause: EventSeq,
    call: ToolCall,
    /// The model printed the call as text in this dialect.
    parsed_from_text: Option<TextCallDialect>,
    pub(super) seq: Option<EventSeq>,
}

impl Requested {
    pub(super) fn new(
        cause: EventSeq,
        call: ToolCall,
        parsed_from_text: Option<TextCallDialect>,
    ) -> Self {
        Self {
            cause,
            call,
            parsed_from_text,
            seq: None,
        }
    }

    /// The request's seq, recording it now if it is not yet.
    pub(super) fn seq(&mut self, rec: &mut Recorder) -> Result<EventSeq, AppError> {
        if let Some(seq) = self.seq {
            return Ok(seq);
        }
        let seq = rec.record(
            Some(self.cause),
            EventPayload::ToolCallRequested {
                call: self.call.clone(),
                parsed_from_text: self.parsed_from_text,
            },
        )?;
        self.seq = Some(seq);
        Ok(seq)
    }
}

/// What a call's start follows: its request not recorded yet, or the event
/// (the request, or the user's approval) that lets it run.
pub(super) enum StartAfter {
    Request(Requested),
    Event(EventSeq),
}

impl StartAfter {
    pub(super) fn seq(&mut self, rec: &mut Recorder) -> Result<EventSeq, AppError> {
        let seq = match self {
            StartAfter::Request(requested) => requested.seq(rec)?,
            StartAfter::Event(seq) => *seq,
        };
        *self = StartAfter::Event(seq);
        Ok(seq)
    }

    /// Records the call's start (with its request, if not recorded yet, in
    /// the same commit).
    pub(super) fn record_start(
        self,
        rec: &mut Recorder,
        call_id: &CallId,
    ) -> Result<EventSeq, AppError> {
        let start = EventPayload::ToolCallStarted {
            call_id: call_id.clone(),
        };
        match self {
            StartAfter::Event(cause) => rec.record(Some(cause), start),
            StartAfter::Request(requested) => rec.record_chain(
                Some(requested.cause),
                vec![
                    EventPayload::ToolCallRequested {
                        call: requested.call,
                        parsed_from_text: requested.parsed_from_text,
                    },
                    start,
                ],
            ),
        }
    }
}

/// Asks the user about a call, its request recorded first.
pub(super) async fn ask_after(
    rec: &mut Recorder,
    deps: &LoopDeps,
    requested: &mut Requested,
    call: &ToolCall,
    summary: &str,
) -> Result<Asked, AppError> {
    let seq = requested.seq(rec)?;
    ask(rec, deps, seq, call, summary).await
}
