//! Appending events (atomic, with an expected sequence) and reading them.

use crate::owners::{owner_row, set_owner};
use crate::projections::{load_projection, snapshot_due, upsert_projection};
use crate::CachedProjection;
use crate::{Store, StoreError};
use bearagent_kernel::{
    apply, EventEnvelope, EventPayload, EventSeq, NewEvent, RunId, RunProjection, RunStatus,
    Timestamp, EVENT_SCHEMA_VERSION,
};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

/// Most events one page read returns, whatever the caller asks for.
pub const MAX_PAGE: u32 = 5_000;

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
        let mut guard = self.writer()?;
        let writer = &mut *guard;
        let tx = writer
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stored_last = stored_last_seq(&tx, run_id)?;
        let actual_next = EventSeq(stored_last.unwrap_or(0)).next();
        if actual_next != expected_next {
            return Err(StoreError::Conflict {
                run_id,
                expected: expected_next,
                actual: actual_next,
            });
        }
        let (mut state, snapshot_seq): (Option<RunProjection>, u64) =
            match (stored_last, writer.cache.get(&run_id)) {
                (None, _) => (None, 0),
                (Some(last), Some(cached)) if cached.state.last_seq.get() == last => {
                    (Some(cached.state.clone()), cached.snapshot_seq)
                }
                (Some(_), _) => match load_projection(&tx, run_id)? {
                    Some((state, snapshot_seq)) => (Some(state), snapshot_seq),
                    None => (None, 0),
                },
            };
        // Besides the count, only the status decides a snapshot: keep it,
        // not a copy of the whole projection (this is the append path).
        let status_before = state.as_ref().map(|s| s.status.clone());
        let resumes = events
            .first()
            .is_some_and(|e| matches!(e.payload, EventPayload::RunResumed));
        match &state {
            // The creator of a run is its owner.
            None => set_owner(&tx, run_id, self.lock.owner())?,
            // Resuming an interrupted run makes this process its owner, in
            // the same transaction: of two processes resuming at once, the
            // reducer lets exactly one through.
            Some(current) if resumes && current.status == RunStatus::Interrupted => {
                set_owner(&tx, run_id, self.lock.owner())?
            }
            Some(current) => self.check_owner(&tx, run_id, current)?,
        }
        let mut stamped = Vec::with_capacity(events.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let run_key = run_id.to_string();
            let mut seq = expected_next;
            for event in events {
                let envelope = event.into_envelope(run_id, seq);
                let next = apply(state.as_ref(), &envelope)
                    .map_err(|source| StoreError::Rejected { run_id, source })?;
                let payload = serde_json::to_string(&envelope.payload).map_err(|source| {
                    StoreError::Encode {
                        what: "event payload",
                        source,
                    }
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
                state = Some(next);
                stamped.push(envelope);
                seq = seq.next();
            }
        }
        let mut snapshot_seq = snapshot_seq;
        if let Some(state) = &state {
            if !stamped.is_empty() && snapshot_due(status_before.as_ref(), snapshot_seq, state) {
                upsert_projection(&tx, state)?;
                snapshot_seq = state.last_seq.get();
            }
        }
        tx.commit()?;
        if let Some(state) = state {
            writer.cache.insert(
                run_id,
                CachedProjection {
                    state,
                    snapshot_seq,
                },
            );
        }
        // Keep the cache bounded: it only speeds up runs being written now.
        if writer.cache.len() > 64 {
            writer.cache.retain(|id, _| *id == run_id);
        }
        Ok(stamped)
    }

    /// A live run's events come only from its owner; a finished or
    /// interrupted run takes review and reconciliation events from anyone
    /// (the reducer decides which).
    fn check_owner(
        &self,
        conn: &Connection,
        run_id: RunId,
        current: &RunProjection,
    ) -> Result<(), StoreError> {
        if !current.status.is_live() {
            return Ok(());
        }
        match owner_row(conn, run_id)? {
            Some(owner) if owner.instance == self.lock.owner().instance => Ok(()),
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

fn seq_to_sql(seq: EventSeq) -> i64 {
    i64::try_from(seq.get()).unwrap_or(i64::MAX)
}

fn stored_last_seq(conn: &Connection, run_id: RunId) -> Result<Option<u64>, StoreError> {
    let last: Option<i64> = conn
        .prepare_cached("SELECT MAX(seq) FROM events WHERE run_id = ?1")?
        .query_row([run_id.to_string()], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(last.map(|s| u64::try_from(s).unwrap_or(0)))
}

pub(crate) fn read_events(
    conn: &Connection,
    run_id: RunId,
    after: EventSeq,
    limit: u32,
) -> Result<Vec<EventEnvelope>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, at, cause, schema_version, payload FROM events
         WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![run_id.to_string(), seq_to_sql(after), limit], |r| {
        Ok(RawEvent {
            seq: r.get(0)?,
            at: r.get(1)?,
            cause: r.get(2)?,
            schema_version: r.get(3)?,
            payload: r.get(4)?,
        })
    })?;
    let mut out = Vec::new();
    for row in rows {
        out.push(row?.decode(run_id)?);
    }
    Ok(out)
}

pub(crate) struct RawEvent {
    pub seq: i64,
    pub at: String,
    pub cause: Option<i64>,
    pub schema_version: i64,
    pub payload: String,
}

impl RawEvent {
    pub(crate) fn decode(self, run_id: RunId) -> Result<EventEnvelope, StoreError> {
        let fail = |detail: String| StoreError::Decode {
            run_id: run_id.to_string(),
            seq: self.seq,
            detail,
        };
        if self.schema_version > i64::from(EVENT_SCHEMA_VERSION) {
            return Err(fail(format!(
                "written with event schema {} but this BearAgent reads up to {}",
                self.schema_version, EVENT_SCHEMA_VERSION
            )));
        }
        let seq = u64::try_from(self.seq).map_err(|_| fail("negative seq".into()))?;
        let at = Timestamp::parse_rfc3339(&self.at).map_err(|e| fail(format!("bad time: {e}")))?;
        let cause = match self.cause {
            None => None,
            Some(c) => Some(EventSeq(
                u64::try_from(c).map_err(|_| fail("negative cause".into()))?,
            )),
        };
        let payload: EventPayload =
            serde_json::from_str(&self.payload).map_err(|e| fail(e.to_string()))?;
        Ok(EventEnvelope {
            schema_version: EVENT_SCHEMA_VERSION,
            run_id,
            seq: EventSeq(seq),
            at,
            cause,
            payload,
        })
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
