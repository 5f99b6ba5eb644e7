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

use crate::error::StoreError;
use crate::instance::RunOwner;
use crate::store::Store;
use bearagent_kernel::RunId;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

/// Statuses in which a run is being executed by its owner.
pub(crate) const LIVE_STATUSES: [&str; 3] = ["created", "running", "awaiting_approval"];

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
