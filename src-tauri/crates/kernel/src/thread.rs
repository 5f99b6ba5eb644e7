//! Threads: a follow-up run continues a finished parent run's conversation;
//! a fork continues it from one of the parent's events.

use crate::ids::{EventSeq, RunId};
use serde::{Deserialize, Serialize};

/// The run a follow-up or fork continues, and the last of its events the
/// new run's context includes (for a follow-up, the parent's last event
/// when the follow-up was created — so the context never changes later).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentRun {
    pub run_id: RunId,
    pub through_seq: EventSeq,
    /// A fork branches at `through_seq`; a follow-up takes the whole run.
    pub fork: bool,
}
