//! Appending events (atomic, with an expected sequence) and reading them.

use crate::error::StoreError;
use crate::event_rows::{read_events, seq_to_sql, MAX_PAGE};
use crate::owners::{owner_row, set_owner};
use crate::projections::{load_projection, snapshot_due, upsert_projection};
use crate::store::{CachedProjection, Store};
use bearagent_kernel::{
    apply, EventEnvelope, EventPayload, EventSeq, NewEvent, RunId, RunProjection, RunStatus,
};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;

impl Store {
    /// Appends `events` to `run_id`'s log as seqs `expected_next, …`,
    /// updating the run projection in the same transaction. If the log's
    /// next seq is not `expected_next`, or the reducer rejects any event,
    /// nothing is written.
    pub fn append(
        &self,
        run_id: RunId,
        expected_next: EventSeq,
        events: Vec<NewEvent>,
    ) -> Result<Vec<EventEnvelope>, StoreError> {
        self.append_with(run_id, expected_next, events, |_| Ok(()))
    }

    /// `append`, with `also` done in the same transaction (an imported
    /// run's mark: a kill leaves the run whole and marked, or absent).
    pub(crate) fn append_with(
        &self,
        run_id: RunId,
        expected_next: EventSeq,
        events: Vec<NewEvent>,
        also: impl FnOnce(&Connection) -> Result<(), StoreError>,
    ) -> Result<Vec<EventEnvelope>, StoreError> {
        let mut guard = self.writer()?;
        let writer = &mut *guard;
        let tx = writer
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stored_last = known_last_seq(&tx, &mut writer.cache, &mut writer.data_version, run_id)?;
        let actual_next = EventSeq(stored_last.unwrap_or(0)).next();
        if actual_next != expected_next {
            return Err(StoreError::Conflict {
                run_id,
                expected: expected_next,
                actual: actual_next,
            });
        }
        let (mut state, mut snapshot_seq) = current_state(&tx, &writer.cache, run_id, stored_last)?;
        // Besides the count, only the status decides a snapshot: keep it,
        // not a copy of the whole projection (this is the append path).
        let status_before = state.as_ref().map(|s| s.status.clone());
        let resumes = events
            .first()
            .is_some_and(|e| matches!(e.payload, EventPayload::RunResumed));
        let known_ours = writer.cache.get(&run_id).is_some_and(|c| c.ours);
        let ours = self.claim_or_check_owner(&tx, run_id, state.as_ref(), resumes, known_ours)?;
        let stamped = insert_events(&tx, run_id, expected_next, events, &mut state)?;
        if let Some(state) = &state {
            if !stamped.is_empty() && snapshot_due(status_before.as_ref(), snapshot_seq, state) {
                upsert_projection(&tx, state)?;
                snapshot_seq = state.last_seq.get();
            }
        }
        also(&tx)?;
        tx.commit()?;
        writer.appends_committed += 1;
        remember(&mut writer.cache, run_id, state, snapshot_seq, ours);
        Ok(stamped)
    }

    /// Event appends (transactions) this handle has committed.
    pub fn appends_committed(&self) -> Result<u64, StoreError> {
        Ok(self.writer()?.appends_committed)
    }

    /// The creator of a run is its owner; resuming an interrupted run makes
    /// this process its owner, in the same transaction (of two processes
    /// resuming at once, the reducer lets exactly one through); otherwise
    /// only the owner may append to a live run (`known_ours`: the cache
    /// says so, and no other connection committed since). True when this
    /// instance is now known to be the owner.
    fn claim_or_check_owner(
        &self,
        conn: &Connection,
        run_id: RunId,
        current: Option<&RunProjection>,
        resumes: bool,
        known_ours: bool,
    ) -> Result<bool, StoreError> {
        match current {
            None => set_owner(conn, run_id, self.lock.owner()).map(|()| true),
            Some(current) if resumes && current.status == RunStatus::Interrupted => {
                set_owner(conn, run_id, self.lock.owner()).map(|()| true)
            }
            Some(_) if known_ours => Ok(true),
            Some(current) => self.check_owner(conn, run_id, current),
        }
    }

    /// A live run's events come only from its owner; a finished or
    /// interrupted run takes review and reconciliation events from anyone
    /// (the reducer decides which). True when the owner was checked and
    /// is this instance.
    fn check_owner(
        &self,
        conn: &Connection,
        run_id: RunId,
        current: &RunProjection,
    ) -> Result<bool, StoreError> {
        if !current.status.is_live() {
            return Ok(false);
        }
        match owner_row(conn, run_id)? {
            Some(owner) if owner.instance == self.lock.owner().instance => Ok(true),
            Some(owner) => Err(StoreError::NotOwner {
                run_id,
                pid: owner.pid,
                program: owner.program,
            }),
            None => Err(StoreError::NotOwner {
                run_id,
                pid: 0,
                program: "unknown (no owner recorded)".into(),
            }),
        }
    }

    /// Events of `run_id` with seq greater than `after`, oldest first, at
    /// most `limit` (capped at [`MAX_PAGE`]).
    pub fn events_after(
        &self,
        run_id: RunId,
        after: EventSeq,
        limit: u32,
    ) -> Result<Vec<EventEnvelope>, StoreError> {
        let conn = self.reader()?;
        read_events(&conn, run_id, after, limit.min(MAX_PAGE))
    }

    /// The next seq to append to `run_id` (1 for an unknown run).
    pub fn next_seq(&self, run_id: RunId) -> Result<EventSeq, StoreError> {
        let conn = self.reader()?;
        Ok(EventSeq(stored_last_seq(&conn, run_id)?.unwrap_or(0)).next())
    }
}

/// The run's projection before an append, and the seq of its last
/// snapshot: from the cache when it is current (`stored_last` is the log's
/// last seq), else from the stored snapshot and the events after it.
fn current_state(
    conn: &Connection,
    cache: &HashMap<RunId, CachedProjection>,
    run_id: RunId,
    stored_last: Option<u64>,
) -> Result<(Option<RunProjection>, u64), StoreError> {
    Ok(match (stored_last, cache.get(&run_id)) {
        (None, _) => (None, 0),
        (Some(last), Some(cached)) if cached.state.last_seq.get() == last => {
            (Some(cached.state.clone()), cached.snapshot_seq)
        }
        (Some(_), _) => match load_projection(conn, run_id)? {
            Some((state, snapshot_seq)) => (Some(state), snapshot_seq),
            None => (None, 0),
        },
    })
}

/// Stamps, checks (with the reducer) and inserts each event in order,
/// folding it into `state`; the first rejected event fails the append.
fn insert_events(
    conn: &Connection,
    run_id: RunId,
    first: EventSeq,
    events: Vec<NewEvent>,
    state: &mut Option<RunProjection>,
) -> Result<Vec<EventEnvelope>, StoreError> {
    let mut stamped = Vec::with_capacity(events.len());
    let mut insert = conn.prepare_cached(
        "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let run_key = run_id.to_string();
    let mut seq = first;
    for event in events {
        let envelope = event.into_envelope(run_id, seq);
        let next = apply(state.as_ref(), &envelope)
            .map_err(|source| StoreError::Rejected { run_id, source })?;
        let payload =
            serde_json::to_string(&envelope.payload).map_err(|source| StoreError::Encode {
                what: "event payload",
                source,
            })?;
        insert.execute(params![
            run_key,
            seq_to_sql(seq),
            envelope.payload.type_name(),
            envelope.at.to_rfc3339(),
            envelope.cause.map(seq_to_sql),
            envelope.schema_version,
            payload,
        ])?;
        crate::worktree_index::note(conn, &run_key, &envelope.payload)?;
        *state = Some(next);
        stamped.push(envelope);
        seq = seq.next();
    }
    Ok(stamped)
}

/// Caches a run's projection after a committed append. Bounded: the cache
/// only speeds up runs being written now.
fn remember(
    cache: &mut HashMap<RunId, CachedProjection>,
    run_id: RunId,
    state: Option<RunProjection>,
    snapshot_seq: u64,
    ours: bool,
) {
    if let Some(state) = state {
        cache.insert(
            run_id,
            CachedProjection {
                state,
                snapshot_seq,
                ours,
            },
        );
    }
    if cache.len() > 64 {
        cache.retain(|id, _| *id == run_id);
    }
}

/// The run's last stored seq. While no other connection has committed
/// since this one last looked (`PRAGMA data_version` is the same), the
/// log's end is what this connection committed last, which it cached: no
/// query. Otherwise the cache may be stale and is dropped.
fn known_last_seq(
    conn: &Connection,
    cache: &mut HashMap<RunId, CachedProjection>,
    seen_version: &mut Option<i64>,
    run_id: RunId,
) -> Result<Option<u64>, StoreError> {
    let version: i64 = conn
        .prepare_cached("PRAGMA data_version")?
        .query_row([], |r| r.get(0))?;
    if *seen_version != Some(version) {
        cache.clear();
        *seen_version = Some(version);
    }
    match cache.get(&run_id) {
        Some(cached) => Ok(Some(cached.state.last_seq.get())),
        None => stored_last_seq(conn, run_id),
    }
}

fn stored_last_seq(conn: &Connection, run_id: RunId) -> Result<Option<u64>, StoreError> {
    let last: Option<i64> = conn
        .prepare_cached("SELECT MAX(seq) FROM events WHERE run_id = ?1")?
        .query_row([run_id.to_string()], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(last.map(|s| u64::try_from(s).unwrap_or(0)))
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
