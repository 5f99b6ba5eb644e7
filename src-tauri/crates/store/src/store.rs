//! The store handle: its connections, its instance lock and the cache of
//! projections being appended to. What it does lives beside it, one file
//! per concern (`events.rs`, `projections.rs`, `owners.rs`, …).

use crate::error::StoreError;
use crate::instance::InstanceLock;
use crate::schema;
use bearagent_kernel::{RunId, RunProjection};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// File name of the database inside the BearAgent home directory.
pub const DB_FILE_NAME: &str = "bearagent.db";

/// The store. One writer connection (appends are serialised) and one reader
/// connection; WAL lets reads proceed while a write is in progress. Several
/// processes may open the same database: each store is an instance that
/// owns the runs it executes (see `owners`).
pub struct Store {
    path: PathBuf,
    writer: Mutex<Writer>,
    reader: Mutex<Connection>,
    /// Held while the store is open: proves to other processes that this
    /// one is alive, so they leave its runs alone.
    pub(crate) lock: InstanceLock,
}

pub(crate) struct Writer {
    pub(crate) conn: Connection,
    /// Projections of runs recently appended to, so an append does not
    /// re-read and re-decode the projection each time. Always checked
    /// against the stored `last_seq` before use.
    pub(crate) cache: HashMap<RunId, CachedProjection>,
    /// Appends committed by this handle: how benchmarks group the rows of
    /// their raw-SQLite baseline as the store committed them.
    pub(crate) appends_committed: u64,
    /// `PRAGMA data_version` when the cache was last known true: while it
    /// stays the same no other connection has committed, so the cache is
    /// the log's end (and owner) without asking.
    pub(crate) data_version: Option<i64>,
}

/// A run's latest projection and the seq of its last stored snapshot.
pub(crate) struct CachedProjection {
    pub(crate) state: RunProjection,
    pub(crate) snapshot_seq: u64,
    /// The append that cached it found (or made) this instance the run's
    /// owner.
    pub(crate) ours: bool,
}

impl Store {
    /// Opens (creating and migrating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let writer = schema::open_and_migrate(path)?;
        let reader = schema::open_reader(path)?;
        let lock = InstanceLock::acquire(path)?;
        Ok(Store {
            lock,
            path: path.to_path_buf(),
            writer: Mutex::new(Writer {
                conn: writer,
                cache: HashMap::new(),
                appends_committed: 0,
                data_version: None,
            }),
            reader: Mutex::new(reader),
        })
    }

    /// Opens `bearagent.db` inside the given home directory, creating it.
    pub fn open_in(home: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(home).map_err(|source| StoreError::Io {
            path: home.to_path_buf(),
            source,
        })?;
        Store::open(&home.join(DB_FILE_NAME))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn writer(&self) -> Result<MutexGuard<'_, Writer>, StoreError> {
        self.writer.lock().map_err(|_| StoreError::Poisoned)
    }

    pub(crate) fn reader(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.reader.lock().map_err(|_| StoreError::Poisoned)
    }
}
