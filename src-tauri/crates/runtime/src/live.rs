//! Live updates for front ends: committed events plus text deltas. Only the
//! committed events are facts; a subscriber that falls behind pages the rest
//! from the store.

use bearagent_kernel::{EventEnvelope, EventSeq, RunId};
use std::sync::Arc;
use tokio::sync::broadcast;

#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// Shared: every subscriber gets the same committed event.
    Committed(Arc<EventEnvelope>),
    /// Model text as it streams, for the model call whose
    /// `ModelCallStarted` event has seq `model_call`.
    TextDelta {
        run_id: RunId,
        model_call: EventSeq,
        text: String,
    },
    /// The model call's attempt failed mid-stream and is retried: the text
    /// streamed so far for `model_call` is void.
    TextDiscarded { run_id: RunId, model_call: EventSeq },
    /// The run's loop stopped because its events could not be stored (the
    /// store failed or refused an append). The run may still show as live
    /// in the store; this process no longer executes it.
    RunAborted { run_id: RunId, message: String },
    /// Output of a running command, as it arrives (raw, with colour
    /// codes). Transient: the stored output is on `CommandFinished`.
    CommandOutput {
        run_id: RunId,
        call_id: bearagent_kernel::CallId,
        text: String,
    },
}

impl LiveEvent {
    pub fn run_id(&self) -> RunId {
        match self {
            LiveEvent::Committed(e) => e.run_id,
            LiveEvent::TextDelta { run_id, .. }
            | LiveEvent::TextDiscarded { run_id, .. }
            | LiveEvent::RunAborted { run_id, .. }
            | LiveEvent::CommandOutput { run_id, .. } => *run_id,
        }
    }
}

#[derive(Clone)]
pub struct LiveBus {
    sender: broadcast::Sender<LiveEvent>,
}

impl LiveBus {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(4096);
        Self { sender }
    }

    pub fn publish(&self, event: LiveEvent) {
        // No subscriber is fine: events are in the store.
        let _ = self.sender.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.sender.subscribe()
    }
}

impl Default for LiveBus {
    fn default() -> Self {
        Self::new()
    }
}
