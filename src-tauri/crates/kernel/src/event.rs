//! The event vocabulary of a run. Every fact about a run is one of these,
//! appended to the store before anyone acts on it.
//!
//! The payload lives in `event/payload.rs` and the small value types it
//! carries in `event/kinds.rs`; this file holds the envelope around it.

use crate::clock::Timestamp;
use crate::ids::{EventSeq, RunId};
use serde::{Deserialize, Serialize};

mod defaults;
mod kinds;
mod payload;

pub use crate::review::ReviewAction;
pub use defaults::DEFAULT_MAX_REPEATED_CALLS;
pub use kinds::{ApprovalScope, EffectOutcome, ModelErrorClass, Receipt, StopReason};
pub use payload::EventPayload;

/// Version of the event payload schema. Bumped on any incompatible change;
/// a reader refuses events newer than it knows.
pub const EVENT_SCHEMA_VERSION: u16 = 1;

/// An event as stored: payload plus its place in the run's log.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    pub schema_version: u16,
    pub run_id: RunId,
    pub seq: EventSeq,
    pub at: Timestamp,
    /// The event that led to this one, if any.
    pub cause: Option<EventSeq>,
    pub payload: EventPayload,
}

/// An event not yet appended: the store assigns its sequence number.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewEvent {
    pub at: Timestamp,
    pub cause: Option<EventSeq>,
    pub payload: EventPayload,
}

impl NewEvent {
    pub fn new(at: Timestamp, cause: Option<EventSeq>, payload: EventPayload) -> Self {
        Self { at, cause, payload }
    }

    pub fn into_envelope(self, run_id: RunId, seq: EventSeq) -> EventEnvelope {
        EventEnvelope {
            schema_version: EVENT_SCHEMA_VERSION,
            run_id,
            seq,
            at: self.at,
            cause: self.cause,
            payload: self.payload,
        }
    }
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
