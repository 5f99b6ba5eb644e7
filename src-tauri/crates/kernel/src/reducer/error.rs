//! Why the reducer refused an event, apart from the reducer so its steps
//! can name it without importing the reducer back.

use crate::ids::{EventSeq, RunId};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    #[error("event {seq} ({event}) arrived before run_created")]
    NotCreated { seq: EventSeq, event: &'static str },
    #[error("run {run_id} already exists; run_created may appear only once")]
    AlreadyCreated { run_id: RunId },
    #[error("event for run {got} applied to run {expected}")]
    WrongRun { expected: RunId, got: RunId },
    #[error("event sequence out of order: expected {expected}, got {got}")]
    OutOfOrder { expected: EventSeq, got: EventSeq },
    #[error("event {seq} ({event}) after the run ended as {status}")]
    AfterTerminal {
        seq: EventSeq,
        event: &'static str,
        status: &'static str,
    },
    #[error("event {seq} ({event}) is not allowed while the run is {status}: {reason}")]
    Invalid {
        seq: EventSeq,
        event: &'static str,
        status: &'static str,
        reason: String,
    },
}
