//! This process's instance of the store: the OS lock it holds beside the
//! database while open, and how it tells whether another instance lives
//! (why a lock file and not a lease: see `owners.rs`).

use crate::error::StoreError;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// Folder of the instance lock files, beside the database.
const OWNERS_DIR: &str = "owners";

/// Who executes a run: the instance id, its OS process id and program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOwner {
    pub instance: String,
    pub pid: u32,
    pub program: String,
}

/// This store's instance: its lock is held until the store is dropped.
pub(crate) struct InstanceLock {
    owner: RunOwner,
    dir: PathBuf,
    path: PathBuf,
    _file: File,
}

impl InstanceLock {
    #[expect(
        clippy::disallowed_methods,
        reason = "BearAgent's own data folder (instance and migration locks), never a user's"
    )]
    pub(crate) fn acquire(db_path: &Path) -> Result<InstanceLock, StoreError> {
        let dir = db_path
            .parent()
            .map_or_else(|| PathBuf::from(OWNERS_DIR), |p| p.join(OWNERS_DIR));
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        let instance = uuid::Uuid::now_v7().simple().to_string();
        let path = dir.join(format!("{instance}.lock"));
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        file.try_lock().map_err(|e| match e {
            TryLockError::WouldBlock => StoreError::Io {
                path: path.clone(),
                source: std::io::Error::other("a fresh instance lock is already held"),
            },
            TryLockError::Error(source) => io(source),
        })?;
        let program = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "bearagent".into());
        Ok(InstanceLock {
            owner: RunOwner {
                instance,
                pid: std::process::id(),
                program,
            },
            dir,
            path,
            _file: file,
        })
    }

    pub(crate) fn owner(&self) -> &RunOwner {
        &self.owner
    }

    /// True unless the instance is provably gone: its lock file is missing
    /// or can be locked (its holder died). An error that proves nothing
    /// counts as alive: a run is never taken from a maybe-live owner.
    #[expect(
        clippy::disallowed_methods,
        reason = "BearAgent's own data folder (instance and migration locks), never a user's"
    )]
    pub(crate) fn is_alive(&self, instance: &str) -> bool {
        if instance == self.owner.instance {
            return true;
        }
        // Ids come from the database: only our own hex ids name a file.
        if instance.is_empty() || !instance.chars().all(|c| c.is_ascii_hexdigit()) {
            return false;
        }
        let path = self.dir.join(format!("{instance}.lock"));
        match OpenOptions::new().read(true).write(true).open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(_) => true,
            Ok(file) => match file.try_lock() {
                Ok(()) => false,
                Err(TryLockError::WouldBlock) | Err(TryLockError::Error(_)) => true,
            },
        }
    }

    /// Removes a dead instance's lock file once its runs were taken over.
    #[expect(
        clippy::disallowed_methods,
        reason = "BearAgent's own data folder (instance and migration locks), never a user's"
    )]
    pub(crate) fn forget(&self, instance: &str) {
        if instance != self.owner.instance && instance.chars().all(|c| c.is_ascii_hexdigit()) {
            let _ = std::fs::remove_file(self.dir.join(format!("{instance}.lock")));
        }
    }
}

impl Drop for InstanceLock {
    #[expect(
        clippy::disallowed_methods,
        reason = "BearAgent's own data folder (instance and migration locks), never a user's"
    )]
    fn drop(&mut self) {
        // Still locked while unlinking: nobody can see a free lock of a
        // live instance.
        let _ = std::fs::remove_file(&self.path);
    }
}
