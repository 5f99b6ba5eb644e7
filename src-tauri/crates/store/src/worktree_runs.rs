//! Which runs work in a git worktree: a small index kept by `append` (and
//! by `rebuild_projections`), so listing worktrees reads a row per worktree
//! run instead of the first event of every run the store ever held. The
//! index itself is kept by `worktree_index.rs`.

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::RunId;

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
        run_ids(&mut stmt)
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
        run_ids(&mut stmt)
    }
}

impl Store {
    /// Worktree runs whose last removal intent (a `worktree_step`
    /// `removal_started`) has no `worktree_removed` after it: a removal a
    /// crash interrupted, for the next start to finish.
    pub fn open_worktree_removals(&self) -> Result<Vec<RunId>, StoreError> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(
            "SELECT w.run_id FROM run_worktrees w WHERE
               (SELECT MAX(seq) FROM events e WHERE e.run_id = w.run_id
                  AND e.type = 'worktree_step'
                  AND json_extract(e.payload, '$.step.kind') = 'removal_started')
               > COALESCE((SELECT MAX(seq) FROM events e WHERE e.run_id = w.run_id
                  AND e.type = 'worktree_removed'), 0)",
        )?;
        run_ids(&mut stmt)
    }
}

/// The run ids a query's first column holds, in its order.
fn run_ids(stmt: &mut rusqlite::CachedStatement<'_>) -> Result<Vec<RunId>, StoreError> {
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

#[cfg(test)]
#[path = "worktree_runs_tests.rs"]
mod tests;
