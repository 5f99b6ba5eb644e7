//! Store failures: SQLite, decoding, conflicts, ownership, a newer schema.

use bearagent_kernel::{EventSeq, ReduceError, RunId};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database at {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot create {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the database at {path} has schema version {found}, newer than this BearAgent supports \
         ({supported}); it was left untouched — use a newer BearAgent"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("the file at {path} is not a BearAgent database or is corrupt: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("the database stayed locked by another process past the busy timeout")]
    Busy,
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
    #[error("append to run {run_id} expected next seq {expected}, but the log is at {actual}")]
    Conflict {
        run_id: RunId,
        expected: EventSeq,
        actual: EventSeq,
    },
    #[error(
        "run {run_id} is being executed by another BearAgent process ({program}, pid {pid}); \
         only that process may record its events"
    )]
    NotOwner {
        run_id: RunId,
        pid: u32,
        program: String,
    },
    #[error("event rejected for run {run_id}: {source}")]
    Rejected {
        run_id: RunId,
        #[source]
        source: ReduceError,
    },
    #[error("event {seq} of run {run_id} cannot be decoded: {detail}")]
    Decode {
        run_id: String,
        seq: i64,
        detail: String,
    },
    #[error("stored projection of run {run_id} cannot be decoded: {detail}")]
    DecodeProjection { run_id: String, detail: String },
    #[error("cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("rebuilding the projection of run {run_id} failed: {source}")]
    Rebuild {
        run_id: RunId,
        #[source]
        source: ReduceError,
    },
    #[error("a store lock was poisoned by a panic in another thread")]
    Poisoned,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked) => {
                StoreError::Busy
            }
            _ => StoreError::Sqlite(e),
        }
    }
}
