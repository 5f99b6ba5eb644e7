//! The runs projection: maintained by `append`, rebuildable from events.
//!
//! A run's row is a snapshot: `append` rewrites it when the status changes
//! and at least every [`SNAPSHOT_EVERY`] events, not on every event (the
//! row was a third of a step's write). Readers fold the few events after
//! the snapshot, so what they see is always the run's latest state.

use crate::error::StoreError;
use crate::event_rows::{read_events, RawEvent, MAX_PAGE};
use crate::store::Store;
use bearagent_kernel::{apply, RunId, RunProjection, RunStatus, WorkspaceId};
use rusqlite::{params, Connection, OptionalExtension};

/// Which runs to list.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub workspace_id: Option<WorkspaceId>,
    /// A status name as `RunStatus::name` gives it, e.g. "failed".
    pub status: Option<String>,
    /// Case-insensitive text the goal must contain.
    pub text: Option<String>,
    pub limit: Option<u32>,
    /// Only runs imported from run files (whatever workspace they name:
    /// theirs is another machine's).
    pub imported_only: bool,
}

const DEFAULT_RUN_LIMIT: u32 = 200;

/// Most events a run's row may be behind its log.
pub const SNAPSHOT_EVERY: u64 = 16;

/// Whether `append` rewrites the run's row after moving from status
/// `before` (`None`: a new run; the last stored snapshot's seq
/// `snapshot_seq`) to `after`.
pub(crate) fn snapshot_due(
    before: Option<&RunStatus>,
    snapshot_seq: u64,
    after: &RunProjection,
) -> bool {
    match before {
        None => true,
        Some(before) => {
            *before != after.status
                || after.last_seq.get().saturating_sub(snapshot_seq) >= SNAPSHOT_EVERY
        }
    }
}

pub(crate) fn upsert_projection(conn: &Connection, p: &RunProjection) -> Result<(), StoreError> {
    let json = serde_json::to_string(p).map_err(|source| StoreError::Encode {
        what: "run projection",
        source,
    })?;
    conn.prepare_cached(
        "INSERT INTO runs (run_id, workspace_id, status, goal, created_at_ms, updated_at_ms, last_seq, projection)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (run_id) DO UPDATE SET status = excluded.status,
             updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq,
             projection = excluded.projection",
    )?
    .execute(params![
        p.run_id.to_string(),
        p.workspace_id.to_string(),
        p.status.name(),
        p.goal,
        p.created_at.unix_millis(),
        p.updated_at.unix_millis(),
        i64::try_from(p.last_seq.get()).unwrap_or(i64::MAX),
        json,
    ])?;
    Ok(())
}

fn decode_projection(run_id: &str, json: &str) -> Result<RunProjection, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::DecodeProjection {
        run_id: run_id.to_owned(),
        detail: e.to_string(),
    })
}

/// A run's latest projection: its stored snapshot with the events after
/// it folded in, and the snapshot's seq.
pub(crate) fn load_projection(
    conn: &Connection,
    run_id: RunId,
) -> Result<Option<(RunProjection, u64)>, StoreError> {
    let key = run_id.to_string();
    let json: Option<String> = conn
        .prepare_cached("SELECT projection FROM runs WHERE run_id = ?1")?
        .query_row([&key], |r| r.get(0))
        .optional()?;
    json.map(|j| {
        let snapshot = decode_projection(&key, &j)?;
        let snapshot_seq = snapshot.last_seq.get();
        Ok((fold_tail(conn, snapshot)?, snapshot_seq))
    })
    .transpose()
}

/// Folds the events stored after `snapshot` into it. Events are only ever
/// appended, so the snapshot and the events read after it are one prefix of
/// the log whichever commits happen between the two reads.
fn fold_tail(conn: &Connection, snapshot: RunProjection) -> Result<RunProjection, StoreError> {
    let run_id = snapshot.run_id;
    let mut state = snapshot;
    loop {
        let tail = read_events(conn, run_id, state.last_seq, MAX_PAGE)?;
        for event in &tail {
            state = apply(Some(&state), event)
                .map_err(|source| StoreError::Rebuild { run_id, source })?;
        }
        if tail.len() < MAX_PAGE as usize {
            return Ok(state);
        }
    }
}

impl Store {
    /// One run's projection, if the run exists.
    pub fn get_run(&self, run_id: RunId) -> Result<Option<RunProjection>, StoreError> {
        let conn = self.reader()?;
        Ok(load_projection(&conn, run_id)?.map(|(state, _)| state))
    }

    /// Runs newest first, optionally only one workspace's.
    pub fn list_runs(&self, filter: &RunFilter) -> Result<Vec<RunProjection>, StoreError> {
        let conn = self.reader()?;
        let limit = filter.limit.unwrap_or(DEFAULT_RUN_LIMIT);
        let workspace = filter.workspace_id.map(|w| w.to_string());
        let text = filter.text.as_ref().map(|t| {
            let escaped = t
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        });
        let mut stmt = conn.prepare_cached(
            "SELECT run_id, projection FROM runs
             WHERE (?1 IS NULL OR workspace_id = ?1)
               AND (?3 IS NULL OR status = ?3)
               AND (?4 IS NULL OR goal LIKE ?4 ESCAPE '\\')
               AND (?5 = 0 OR run_id IN (SELECT run_id FROM imported_runs))
             ORDER BY created_at_ms DESC, run_id DESC LIMIT ?2",
        )?;
        let imported_only = filter.imported_only;
        let rows = stmt.query_map(
            params![workspace, limit, filter.status, text, imported_only],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let mut out = Vec::new();
        for row in rows {
            let (id, json) = row?;
            out.push(decode_projection(&id, &json)?);
        }
        drop(stmt);
        out.into_iter().map(|p| fold_tail(&conn, p)).collect()
    }

    /// Recomputes every run projection from its events, in one transaction:
    /// if any run's events do not fold, nothing changes and the error names
    /// the run. Returns the number of runs rebuilt.
    pub fn rebuild_projections(&self) -> Result<usize, StoreError> {
        let mut guard = self.writer()?;
        let writer = &mut *guard;
        writer.cache.clear();
        let tx = writer.conn.transaction()?;
        tx.execute("DELETE FROM runs", [])?;
        let mut rebuilt = 0usize;
        {
            let mut stmt = tx.prepare(
                "SELECT run_id, seq, at, cause, schema_version, payload FROM events
                 ORDER BY run_id, seq",
            )?;
            let mut rows = stmt.query([])?;
            let mut current: Option<(RunId, RunProjection)> = None;
            while let Some(row) = rows.next()? {
                let run_key: String = row.get(0)?;
                let run_id: RunId = run_key.parse().map_err(|e| StoreError::Decode {
                    run_id: run_key.clone(),
                    seq: row.get(1).unwrap_or(0),
                    detail: format!("{e}"),
                })?;
                let raw = RawEvent {
                    seq: row.get(1)?,
                    at: row.get(2)?,
                    cause: row.get(3)?,
                    schema_version: row.get(4)?,
                    payload: row.get(5)?,
                };
                let event = raw.decode(run_id)?;
                let prior = match current.take() {
                    Some((id, state)) if id == run_id => Some(state),
                    Some((_, finished)) => {
                        upsert_projection(&tx, &finished)?;
                        rebuilt += 1;
                        None
                    }
                    None => None,
                };
                let next = apply(prior.as_ref(), &event)
                    .map_err(|source| StoreError::Rebuild { run_id, source })?;
                current = Some((run_id, next));
            }
            if let Some((_, finished)) = current {
                upsert_projection(&tx, &finished)?;
                rebuilt += 1;
            }
        }
        tx.execute("DELETE FROM run_worktrees", [])?;
        tx.execute_batch(crate::worktree_index::FILL_FROM_EVENTS)?;
        tx.commit()?;
        Ok(rebuilt)
    }
}

#[cfg(test)]
#[path = "projections_tests.rs"]
mod tests;
