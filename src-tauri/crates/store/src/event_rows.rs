//! Reading a run's stored events back: the rows, decoded and checked
//! against the schema version this build reads.

use crate::error::StoreError;
use bearagent_kernel::{
    EventEnvelope, EventPayload, EventSeq, RunId, Timestamp, EVENT_SCHEMA_VERSION,
};
use rusqlite::{params, Connection};

/// Most events one page read returns, whatever the caller asks for.
pub const MAX_PAGE: u32 = 5_000;

pub(crate) fn seq_to_sql(seq: EventSeq) -> i64 {
    i64::try_from(seq.get()).unwrap_or(i64::MAX)
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
