//! Receipts and the versions a run has seen: a write's pre-image saved and
//! its intent committed before the file is touched, its post-image after;
//! the snapshots around a command or a hook and the hook's changes they
//! show; and the guard that a write never replaces content the run has
//! not seen. Floor 1 of `run/`.

use super::deps::{LoopDeps, RunGrants};
use super::recorder::Recorder;
use super::snapshot::{self, Snapshot};
use crate::AppError;
use bearagent_kernel::{CallId, ContentHash, EventPayload, EventSeq, Receipt};
use bearagent_store::hash_bytes;
use bearagent_tools::{PreparedCall, WorkspaceRoot, WriteTarget};
use std::path::PathBuf;

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

/// Snapshots the workspace on a blocking thread (it reads files), with the
/// run's cache so unchanged files are not read again.
/// The outer error is the store failing (the run stops); the inner one a
/// file that could not be read (the command is refused, the run goes on).
pub(crate) async fn take_snapshot(
    rec: &Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
) -> Result<Result<Snapshot, String>, AppError> {
    let mut cache = grants.snapshots.take().unwrap_or_default();
    let store = rec.store().clone();
    let now = rec.clock().now();
    let root: PathBuf = deps.workspace.path().to_path_buf();
    let (cache, taken) = tokio::task::spawn_blocking(move || {
        let taken = snapshot::take(&root, &mut cache, &store, now);
        (cache, taken)
    })
    .await
    .map_err(|e| AppError::Internal(format!("workspace snapshot task failed: {e}")))?;
    grants.snapshots = Some(cache);
    match taken {
        Ok(s) => Ok(Ok(s)),
        Err(snapshot::SnapshotError::Store(e)) => Err(e.into()),
        Err(e @ snapshot::SnapshotError::Io { .. }) => Ok(Err(e.to_string())),
    }
}

/// Records what a hook changed between its snapshots, each file with its
/// pre- and post-image as a command's changes are (a file too large to
/// keep is left out: it could not be reverted), and makes the hook's
/// version the one the run has seen. `call_id`: the call the hook ran
/// for, or `hook#SEQ` (its `HookRan`) outside one.
pub(crate) fn record_hook_changes(
    rec: &mut Recorder,
    grants: &mut RunGrants,
    ran: EventSeq,
    call_id: Option<&CallId>,
    hook: &str,
    (before, after): (&Snapshot, &Snapshot),
) -> Result<(), AppError> {
    let changes = snapshot::changes(before, after);
    if changes.is_empty() {
        return Ok(());
    }
    let call_id = match call_id {
        Some(id) => id.clone(),
        None => CallId::new(format!("hook#{}", ran.0))
            .map_err(|e| AppError::Internal(format!("a hook's call id: {e}")))?,
    };
    for change in changes.into_iter().filter(|c| !c.unrevertable) {
        remember_command_change(grants, &change.path, change.after.as_ref());
        rec.record(
            Some(ran),
            EventPayload::ArtifactRecorded {
                call_id: call_id.clone(),
                path: change.path,
                before_hash: change.before,
                after_hash: change.after,
                before_mode: change.before_mode,
                after_mode: change.after_mode,
                by_hook: Some(hook.to_owned()),
            },
        )?;
    }
    Ok(())
}

/// In a replay, the recorded changes of the hook just taken, copied as
/// they are; the run has seen the hook's versions.
pub(crate) fn copy_hook_changes(
    rec: &mut Recorder,
    grants: &mut RunGrants,
) -> Result<(), AppError> {
    loop {
        rec.absorb_beside()?;
        let next = rec.tape().and_then(|t| t.ahead().first());
        let Some(EventPayload::ArtifactRecorded {
            path,
            after_hash,
            by_hook: Some(_),
            ..
        }) = next.map(|e| &e.payload)
        else {
            return Ok(());
        };
        remember_command_change(grants, path, after_hash.as_ref());
        rec.copy_recorded()?;
    }
}
