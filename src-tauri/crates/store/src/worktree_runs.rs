//! Which runs work in a git worktree: a small index kept by `append` (and
//! by `rebuild_projections`), so listing worktrees reads a row per worktree
//! run instead of the first event of every run the store ever held.

use crate::{Store, StoreError};
use bearagent_kernel::{EventPayload, RunId};
use rusqlite::Connection;

/// The SQL that fills the index from the events: each run's first event
/// says whether it runs in a worktree. It reads one event per run (through
/// `runs`, which the events' `(run_id, seq)` key serves), not the whole
/// log. A macro so the migration that makes the index can `concat!` it.
macro_rules! fill_run_worktrees {
    () => {
        "INSERT OR REPLACE INTO run_worktrees (run_id, path)
SELECT e.run_id, json_extract(e.payload, '$.worktree.path')
FROM runs r JOIN events e ON e.run_id = r.run_id AND e.seq = 1
WHERE e.type = 'run_created' AND json_extract(e.payload, '$.worktree.path') IS NOT NULL;"
    };
}
pub(crate) use fill_run_worktrees;

/// The same SQL, for `rebuild_projections`.
pub(crate) const FILL_FROM_EVENTS: &str = fill_run_worktrees!();

/// Records the run's worktree when the event is the one that says it.
pub(crate) fn note(
    conn: &Connection,
    run_key: &str,
    payload: &EventPayload,
) -> Result<(), StoreError> {
    if let EventPayload::RunCreated {
        worktree: Some(worktree),
        ..
    } = payload
    {
        conn.prepare_cached("INSERT OR REPLACE INTO run_worktrees (run_id, path) VALUES (?1, ?2)")?
            .execute([run_key, worktree.path.as_str()])?;
    }
    Ok(())
}

impl Store {
    /// The runs that work in a worktree, oldest first.
    pub fn worktree_runs(&self) -> Result<Vec<RunId>, StoreError> {
        let conn = self.reader()?;
        // CROSS JOIN keeps the index as the outer loop (SQLite's rule):
        // otherwise the planner may walk every run in date order instead.
        let mut stmt = conn.prepare_cached(
            "SELECT w.run_id FROM run_worktrees w CROSS JOIN runs r ON r.run_id = w.run_id
             ORDER BY r.created_at_ms ASC, r.run_id ASC",
        )?;
        let keys = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for key in keys {
            let key = key?;
            out.push(key.parse().map_err(|e| StoreError::Decode {
                run_id: key.clone(),
                seq: 1,
                detail: format!("{e}"),
            })?);
        }
        Ok(out)
    }
}

impl Store {
    /// Worktree runs whose last apply or undo intent (a `worktree_step`
    /// `apply_started`) has no outcome after it: what a crash
    /// may have left half written, for the next start to settle.
    pub fn open_worktree_applies(&self) -> Result<Vec<RunId>, StoreError> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(
            "SELECT w.run_id FROM run_worktrees w WHERE
               (SELECT MAX(seq) FROM events e WHERE e.run_id = w.run_id
                  AND e.type = 'worktree_step'
                  AND json_extract(e.payload, '$.step.kind') = 'apply_started')
               > COALESCE((SELECT MAX(seq) FROM events e WHERE e.run_id = w.run_id
                  AND (e.type = 'worktree_applied' OR (e.type = 'worktree_step'
                  AND json_extract(e.payload, '$.step.kind') IN ('apply_undone', 'apply_settled')))), 0)",
        )?;
        let keys = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for key in keys {
            let key = key?;
            out.push(key.parse().map_err(|e| StoreError::Decode {
                run_id: key.clone(),
                seq: 1,
                detail: format!("{e}"),
            })?);
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "worktree_runs_tests.rs"]
mod tests;
