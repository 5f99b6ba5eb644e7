//! The index of runs that work in a git worktree, below the store: the SQL
//! that fills it (for the migration and `rebuild_projections`) and the
//! row `append` writes for a run created in a worktree.

use crate::error::StoreError;
use bearagent_kernel::EventPayload;
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
