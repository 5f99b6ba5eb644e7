//! The texts a request carries that the record holds as blobs: the
//! project instructions loaded (`InstructionsLoaded`) and the summary of
//! the thread's latest compaction. Floor 0 of `run/`: read by the context
//! cache and by compaction alike.

use super::context;
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload};
use bearagent_store::Store;
use std::collections::BTreeMap;

/// The instructions `events` reference, latest per path, shallowest folder
/// first: (path, text).
pub fn instructions_in(
    store: &Store,
    events: &[EventEnvelope],
) -> Result<Vec<(String, String)>, AppError> {
    let mut latest = BTreeMap::new();
    for e in events {
        if let EventPayload::InstructionsLoaded { path, blob, .. } = &e.payload {
            latest.insert(path.clone(), blob.clone());
        }
    }
    let mut out = Vec::new();
    for (path, blob) in latest {
        let bytes = store.get_blob(&blob)?.ok_or_else(|| {
            AppError::Corrupt(format!("the instructions blob of {path} is missing"))
        })?;
        out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
    }
    out.sort_by_key(|(path, _)| (path.matches('/').count(), path.clone()));
    Ok(out)
}

/// The summary text of the thread's latest compaction, if any.
pub fn summary_text(
    store: &Store,
    ancestors: &[Vec<EventEnvelope>],
    events: &[EventEnvelope],
) -> Result<Option<String>, AppError> {
    let Some((_, _, blob)) = context::latest_compaction(ancestors, events) else {
        return Ok(None);
    };
    let bytes = store
        .get_blob(blob)?
        .ok_or_else(|| AppError::Corrupt(format!("the compaction summary {blob} is missing")))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
