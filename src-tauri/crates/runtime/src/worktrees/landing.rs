//! Writing the main checkout for an apply or its undo, one way (DESIGN
//! principles 10 and 13): every file's pre-image (the user's uncommitted
//! edits included) and post-image saved as blobs and the intent committed,
//! then the disk — each file replaced atomically with its mode by the
//! tools' own replace — then the outcome, by the caller.

use crate::live::LiveBus;
use crate::AppError;
use bearagent_kernel::{
    Clock, ContentHash, EventPayload, EventSeq, RunId, WorktreeFileChange, WorktreeStep,
};
use bearagent_store::Store;
use std::path::{Path, PathBuf};

/// A file's content and permission bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileState {
    pub bytes: Vec<u8>,
    pub mode: u32,
}

impl FileState {
    /// What `path` holds (None: absent).
    pub(crate) fn read(path: &Path) -> Result<Option<FileState>, AppError> {
        use std::os::unix::fs::PermissionsExt;
        let io = |source| AppError::Io {
            path: path.into(),
            source,
        };
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        let bytes = std::fs::read(path).map_err(io)?;
        Ok(Some(FileState {
            bytes,
            mode: meta.permissions().mode() & 0o7777,
        }))
    }

    /// Its hash and mode, as an event records them.
    pub(crate) fn recorded(&self) -> (ContentHash, u32) {
        (bearagent_store::hash_bytes(&self.bytes), self.mode)
    }
}

/// One file to write: what it holds now and what it will hold.
#[derive(Debug, Clone)]
pub(crate) struct FileWrite {
    pub rel: String,
    pub abs: PathBuf,
    pub before: Option<FileState>,
    pub after: Option<FileState>,
}

/// Where the events go.
pub(crate) struct Record<'a> {
    pub store: &'a Store,
    pub clock: &'a dyn Clock,
    pub live: &'a LiveBus,
    pub run_id: RunId,
}

impl Record<'_> {
    /// Appends `payload` caused by `cause`; its seq.
    pub(crate) fn append(
        &self,
        cause: Option<EventSeq>,
        payload: EventPayload,
    ) -> Result<EventSeq, AppError> {
        Ok(crate::run::recorder::append_caused(
            self.store,
            self.clock,
            self.live,
            self.run_id,
            cause,
            payload,
        )?)
    }

    /// Appends the worktree step `step`, caused by `cause`; its seq.
    pub(crate) fn step(
        &self,
        cause: Option<EventSeq>,
        step: WorktreeStep,
    ) -> Result<EventSeq, AppError> {
        self.append(cause, EventPayload::WorktreeStep { step })
    }
}

/// Saves every pre- and post-image, commits the intent, then writes each
/// file (the disk synced once at the end). Returns the intent's seq.
/// A failed write leaves the intent open for [`super::settle`] to settle.
pub(crate) fn land(
    record: &Record,
    root: &Path,
    writes: &[FileWrite],
    undo: bool,
    forced: bool,
) -> Result<EventSeq, AppError> {
    let images = writes
        .iter()
        .flat_map(|w| w.before.iter().chain(&w.after))
        .map(|s| s.bytes.as_slice());
    record.store.put_blobs(images, record.clock.now())?;
    let owner = record.store.instance();
    let intent = WorktreeStep::ApplyStarted {
        undo,
        forced,
        instance: owner.instance.clone(),
        pid: owner.pid,
        files: writes.iter().map(change).collect(),
    };
    let seq = record.step(None, intent)?;
    for w in writes {
        put(&w.abs, w.after.as_ref())?;
    }
    if !writes.is_empty() {
        bearagent_tools::sync_filesystem(root).map_err(|source| AppError::Io {
            path: root.into(),
            source,
        })?;
    }
    Ok(seq)
}

fn change(w: &FileWrite) -> WorktreeFileChange {
    let before = w.before.as_ref().map(FileState::recorded);
    let after = w.after.as_ref().map(FileState::recorded);
    WorktreeFileChange {
        path: w.rel.clone(),
        before_mode: before.as_ref().map(|b| b.1),
        before: before.map(|b| b.0),
        after_mode: after.as_ref().map(|a| a.1),
        after: after.map(|a| a.0),
    }
}

/// Puts `state` at `path` (atomically, content and mode together), or
/// removes it for None.
fn put(path: &Path, state: Option<&FileState>) -> Result<(), AppError> {
    let io = |source| AppError::Io {
        path: path.into(),
        source,
    };
    match state {
        Some(s) => {
            bearagent_tools::replace_file_with_mode(path, &s.bytes, Some(s.mode), false).map_err(io)
        }
        None => bearagent_tools::remove_file(path, false).map_err(io),
    }
}

/// Whether `path` holds the recorded version (hash and mode; None: absent).
pub(crate) fn holds(
    path: &Path,
    hash: &Option<ContentHash>,
    mode: Option<u32>,
) -> Result<bool, AppError> {
    let now = FileState::read(path)?.map(|s| s.recorded());
    Ok(match (now, hash) {
        (None, None) => true,
        (Some((h, m)), Some(want)) => &h == want && mode.is_none_or(|w| w == m),
        _ => false,
    })
}
