//! Threads: the ancestors a follow-up or fork continues, read from their
//! committed events. (Project instructions are `run/instructions.rs`.)

use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, ParentRun};
use bearagent_store::Store;

/// How far back a thread is followed (a guard against a corrupt store).
pub const MAX_THREAD_DEPTH: usize = 256;

/// The runs `parent` continues, oldest first, each cut at the event its
/// follow-up or fork branched from.
pub fn ancestors(
    store: &Store,
    parent: Option<ParentRun>,
) -> Result<Vec<Vec<EventEnvelope>>, AppError> {
    let mut chain = Vec::new();
    let mut next = parent;
    while let Some(p) = next {
        if chain.len() >= MAX_THREAD_DEPTH {
            return Err(AppError::Corrupt(format!(
                "run {} continues a thread deeper than {MAX_THREAD_DEPTH} runs",
                p.run_id
            )));
        }
        let events: Vec<EventEnvelope> = store
            .all_events(p.run_id)?
            .into_iter()
            .filter(|e| e.seq <= p.through_seq)
            .collect();
        let Some(EventPayload::RunCreated { parent, .. }) = events.first().map(|e| &e.payload)
        else {
            return Err(AppError::Corrupt(format!(
                "run {} (a parent in this thread) has no RunCreated event",
                p.run_id
            )));
        };
        next = *parent;
        chain.push(events);
    }
    chain.reverse();
    Ok(chain)
}
