//! Run ownership across processes (DESIGN principle 7).
//!
//! Each open [`Store`] is one *instance*: it holds an exclusive OS lock
//! (`flock`) on its own file `owners/<instance>.lock` beside the database
//! for as long as it is open. A run belongs to the instance that created it
//! (or took it over), recorded in `run_owners`; `append` refuses a live
//! run's events from any other instance.
//!
//! Why a lock file and not a heartbeat lease: the kernel drops a `flock`
//! the moment its process dies, SIGKILL included, so "the owner is gone" is
//! a fact we can check at once — no timer, no clock, no pid reuse. A lease
//! would either expire under a live owner (a suspended laptop, a stalled
//! disk) and let two processes write one run, or keep a dead owner's run
//! hostage until it expired.

use crate::{Store, StoreError};
use bearagent_kernel::RunId;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// Folder of the instance lock files, beside the database.
const OWNERS_DIR: &str = "owners";

/// Statuses in which a run is being executed by its owner.
pub(crate) const LIVE_STATUSES: [&str; 3] = ["created", "running", "awaiting_approval"];

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
    fn forget(&self, instance: &str) {
        if instance != self.owner.instance && instance.chars().all(|c| c.is_ascii_hexdigit()) {
            let _ = std::fs::remove_file(self.dir.join(format!("{instance}.lock")));
        }
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        // Still locked while unlinking: nobody can see a free lock of a
        // live instance.
        let _ = std::fs::remove_file(&self.path);
    }
}

pub(crate) fn owner_row(conn: &Connection, run_id: RunId) -> Result<Option<RunOwner>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT owner, pid, program FROM run_owners WHERE run_id = ?1")?
        .query_row([run_id.to_string()], |r| {
            Ok(RunOwner {
                instance: r.get(0)?,
                pid: r.get(1)?,
                program: r.get(2)?,
            })
        })
        .optional()?)
}

pub(crate) fn set_owner(
    conn: &Connection,
    run_id: RunId,
    owner: &RunOwner,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO run_owners (run_id, owner, pid, program) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
             program = excluded.program",
    )?
    .execute(params![
        run_id.to_string(),
        owner.instance,
        owner.pid,
        owner.program
    ])?;
    Ok(())
}

/// A live run and its recorded owner (instance, pid, program), if any.
type OwnedRow = (String, Option<String>, Option<u32>, Option<String>);

/// Where a run's owner is, as seen from this instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// This instance executes the run.
    Here,
    /// Another live BearAgent process does.
    Elsewhere(RunOwner),
    /// Nobody: the run is finished, or its owner is gone.
    Nobody,
}

impl Store {
    /// This store's instance.
    pub fn instance(&self) -> &RunOwner {
        self.lock.owner()
    }

    /// Whether the BearAgent instance `instance` may still be alive (only
    /// a provably gone one is false): an apply it left open is settled
    /// only then.
    pub fn instance_alive(&self, instance: &str) -> bool {
        self.lock.is_alive(instance)
    }

    /// Who executes `run_id` now: nobody once it is finished or
    /// interrupted.
    pub fn ownership(&self, run_id: RunId) -> Result<Ownership, StoreError> {
        let conn = self.reader()?;
        let status: Option<String> = conn
            .query_row(
                "SELECT status FROM runs WHERE run_id = ?1",
                [run_id.to_string()],
                |r| r.get(0),
            )
            .optional()?;
        if !status.is_some_and(|s| LIVE_STATUSES.contains(&s.as_str())) {
            return Ok(Ownership::Nobody);
        }
        let Some(owner) = owner_row(&conn, run_id)? else {
            return Ok(Ownership::Nobody);
        };
        if owner.instance == self.lock.owner().instance {
            Ok(Ownership::Here)
        } else if self.lock.is_alive(&owner.instance) {
            Ok(Ownership::Elsewhere(owner))
        } else {
            Ok(Ownership::Nobody)
        }
    }

    /// Takes over every live run whose owner is provably gone (or that has
    /// no owner, from before ownership was recorded) and returns them,
    /// oldest first, for the caller to reconcile. Runs of live instances,
    /// this one included, are left alone. Each run comes with its previous
    /// (gone) owner, when one was recorded: its pid names the temporary
    /// files it may have left behind.
    pub fn claim_orphaned_runs(&self) -> Result<Vec<(RunId, Option<RunOwner>)>, StoreError> {
        let mut guard = self.writer()?;
        let tx = guard
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let candidates: Vec<OwnedRow> = {
            let mut stmt = tx.prepare(
                "SELECT r.run_id, o.owner, o.pid, o.program FROM runs r
                 LEFT JOIN run_owners o ON o.run_id = r.run_id
                 WHERE r.status IN (?1, ?2, ?3) ORDER BY r.created_at_ms, r.run_id",
            )?;
            let rows = stmt.query_map(
                params![LIVE_STATUSES[0], LIVE_STATUSES[1], LIVE_STATUSES[2]],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?;
            rows.collect::<Result<_, _>>()?
        };
        let mut claimed = Vec::new();
        let mut gone = Vec::new();
        for (id, owner, pid, program) in candidates {
            if owner.as_ref().is_some_and(|o| self.lock.is_alive(o)) {
                continue;
            }
            let previous = match (&owner, pid, program) {
                (Some(instance), Some(pid), Some(program)) => Some(RunOwner {
                    instance: instance.clone(),
                    pid,
                    program,
                }),
                _ => None,
            };
            let run_id: RunId = id.parse().map_err(|_| StoreError::DecodeProjection {
                run_id: id.clone(),
                detail: "not a run id".into(),
            })?;
            set_owner(&tx, run_id, self.lock.owner())?;
            claimed.push((run_id, previous));
            gone.extend(owner);
        }
        tx.commit()?;
        for instance in gone {
            self.lock.forget(&instance);
        }
        Ok(claimed)
    }
}

#[cfg(test)]
#[path = "owners_tests.rs"]
mod tests;
