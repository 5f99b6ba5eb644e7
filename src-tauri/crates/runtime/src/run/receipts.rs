//! Receipts and the versions a run has seen: a write's pre-image saved and
//! its intent committed before the file is touched, its post-image after;
//! and the guard that a write never replaces content the run has not seen.
//! Floor 1 of `run/`.

use super::deps::RunGrants;
use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{CallId, ContentHash, EventPayload, EventSeq, Receipt};
use bearagent_store::hash_bytes;
use bearagent_tools::{PreparedCall, WorkspaceRoot, WriteTarget};

/// A write must not replace content the run has not seen: if the run read
/// or wrote this file before and it changed since, someone else edited it.
pub(crate) fn conflict_with_seen(grants: &RunGrants, target: &WriteTarget) -> Option<String> {
    let seen = grants.seen.get(&target.rel_path)?;
    let now = current_hash(&target.abs_path).ok()?.map(|(h, _)| h);
    (now != *seen).then(|| {
        format!(
            "conflict: {} changed outside this run since the run last read or wrote it; \
             read it again and make your change on top of the current content",
            target.rel_path
        )
    })
}

/// A write applies to the version of the file it was prepared (and maybe
/// approved) against: if the run has not seen the file yet, that version is
/// the one on disk now, so a file that appears or changes while the user
/// decides is not overwritten.
pub(crate) fn remember_prepared(grants: &mut RunGrants, prepared: &PreparedCall) {
    if let Some(target) = prepared.write_target() {
        grants
            .seen
            .entry(target.rel_path.clone())
            .or_insert_with(|| {
                current_hash(&target.abs_path)
                    .ok()
                    .flatten()
                    .map(|(h, _)| h)
            });
    }
}

/// A file the run's own command changed is not "changed outside this
/// run": a later write to it applies to the version the command left.
pub(crate) fn remember_command_change(
    grants: &mut RunGrants,
    path: &str,
    after: Option<&ContentHash>,
) {
    if let Some(seen) = grants.seen.get_mut(path) {
        *seen = after.cloned();
    }
}

/// Records the version of the file a successful read or write left the run
/// with.
pub(crate) fn remember_seen(
    grants: &mut RunGrants,
    prepared: &PreparedCall,
    receipt: Option<&Receipt>,
    workspace: &WorkspaceRoot,
) {
    if let Some(receipt) = receipt {
        grants
            .seen
            .insert(receipt.path.clone(), receipt.after_hash.clone());
    } else if prepared.tool().as_str() == "read_file" {
        if let Some(rel) = prepared.args().get("path").and_then(|p| p.as_str()) {
            if let Ok(Some((hash, _))) = current_hash(&workspace.path().join(rel)) {
                grants.seen.insert(rel.to_owned(), Some(hash));
            }
        }
    }
}

/// What a write target holds now: its hash, or None when it is absent.
pub(crate) fn current_hash(
    target: &std::path::Path,
) -> Result<Option<(ContentHash, Vec<u8>)>, std::io::Error> {
    match std::fs::read(target) {
        Ok(bytes) => Ok(Some((hash_bytes(&bytes), bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Saves the pre-image and commits the intent before the file is touched.
pub(crate) fn record_intent(
    rec: &mut Recorder,
    started: EventSeq,
    call_id: &CallId,
    target: &WriteTarget,
) -> Result<Option<ContentHash>, AppError> {
    let before = current_hash(&target.abs_path).map_err(|source| AppError::Io {
        path: target.abs_path.clone(),
        source,
    })?;
    let before_hash = match before {
        Some((_, bytes)) => Some(rec.store().put_blob(&bytes, rec.clock().now())?),
        None => None,
    };
    rec.record(
        Some(started),
        EventPayload::EffectIntended {
            call_id: call_id.clone(),
            path: target.rel_path.clone(),
            before_hash: before_hash.clone(),
        },
    )?;
    Ok(before_hash)
}

/// Hashes the file after the tool ran and keeps its post-image as a blob
/// (for diffs and revert).
pub(crate) fn receipt_after(
    rec: &Recorder,
    target: &WriteTarget,
    before_hash: Option<ContentHash>,
) -> Result<Receipt, AppError> {
    let after = current_hash(&target.abs_path).map_err(|source| AppError::Io {
        path: target.abs_path.clone(),
        source,
    })?;
    let (after_hash, bytes_written) = match after {
        Some((_, bytes)) => (
            Some(rec.store().put_blob(&bytes, rec.clock().now())?),
            bytes.len() as u64,
        ),
        None => (None, 0),
    };
    Ok(Receipt {
        path: target.rel_path.clone(),
        before_hash,
        after_hash,
        bytes_written,
    })
}
