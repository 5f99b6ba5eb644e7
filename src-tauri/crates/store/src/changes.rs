//! Noticing what other processes committed: `PRAGMA data_version` on a
//! connection of its own changes whenever another connection commits, and
//! the events table's rowid orders every event ever appended.

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::{EventSeq, RunId};
use rusqlite::Connection;

/// A cheap "did anything change?" probe plus a cursor over new events.
pub struct ChangeFeed {
    conn: Connection,
    data_version: i64,
    last_event_row: i64,
}

impl ChangeFeed {
    /// Runs that got events since the last call, each with the seq before
    /// its first new event. Empty (after one PRAGMA) when nothing changed.
    pub fn poll(&mut self) -> Result<Vec<(RunId, EventSeq)>, StoreError> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?;
        if version == self.data_version {
            return Ok(Vec::new());
        }
        self.data_version = version;
        let mut stmt = self.conn.prepare_cached(
            "SELECT run_id, MIN(seq), MAX(id) FROM events WHERE id > ?1 GROUP BY run_id",
        )?;
        let rows = stmt.query_map([self.last_event_row], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        let mut high = self.last_event_row;
        for row in rows {
            let (run, first_seq, max_row) = row?;
            high = high.max(max_row);
            let run_id: RunId = run.parse().map_err(|_| StoreError::Decode {
                run_id: run.clone(),
                seq: first_seq,
                detail: "not a run id".into(),
            })?;
            let before = u64::try_from(first_seq.saturating_sub(1)).unwrap_or(0);
            out.push((run_id, EventSeq(before)));
        }
        self.last_event_row = high;
        Ok(out)
    }
}

impl Store {
    /// A feed of events committed from now on, by any process.
    pub fn change_feed(&self) -> Result<ChangeFeed, StoreError> {
        let conn = crate::schema::open_reader(self.path())?;
        let data_version = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let last_event_row =
            conn.query_row("SELECT COALESCE(MAX(id), 0) FROM events", [], |r| r.get(0))?;
        Ok(ChangeFeed {
            conn,
            data_version,
            last_event_row,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use bearagent_kernel::testkit::{at, run_created};
    use bearagent_kernel::{EventPayload, EventSeq, NewEvent, RunId, WorkspaceId};

    #[test]
    fn a_feed_reports_runs_another_process_appended_to_once() {
        let home = tempfile::tempdir().unwrap();
        let here = Store::open_in(home.path()).unwrap();
        let there = Store::open_in(home.path()).unwrap();
        let old = RunId::new();
        there
            .append(
                old,
                EventSeq(1),
                vec![NewEvent::new(
                    at(0),
                    None,
                    run_created(WorkspaceId::new(), "old"),
                )],
            )
            .unwrap();
        let mut feed = here.change_feed().unwrap();
        assert!(feed.poll().unwrap().is_empty());

        let run = RunId::new();
        there
            .append(
                run,
                EventSeq(1),
                vec![
                    NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "g")),
                    NewEvent::new(at(1), None, EventPayload::RunStarted),
                ],
            )
            .unwrap();
        assert_eq!(feed.poll().unwrap(), vec![(run, EventSeq(0))]);
        assert!(feed.poll().unwrap().is_empty());
        there
            .append(
                run,
                EventSeq(3),
                vec![NewEvent::new(
                    at(2),
                    None,
                    EventPayload::RunSucceeded { answer: "a".into() },
                )],
            )
            .unwrap();
        assert_eq!(feed.poll().unwrap(), vec![(run, EventSeq(2))]);
    }
}
