//! Runs imported from a bundle another BearAgent exported: read-only here
//! (no follow-up, no review of files that are not on this machine), but
//! inspectable and forkable. Which runs those are is kept beside the log.

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::{RunId, Timestamp};
use rusqlite::{params, OptionalExtension};

/// Where an imported run came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The bundle's file name, as given at import.
    pub source: String,
    pub at: Timestamp,
}

impl Store {
    /// Adds an imported run: its events and its mark in one transaction, so
    /// a kill leaves either nothing or the whole run, read-only.
    pub fn append_imported(
        &self,
        run_id: RunId,
        events: Vec<bearagent_kernel::NewEvent>,
        source: &str,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.append_with(run_id, bearagent_kernel::EventSeq(1), events, |tx| {
            tx.execute(
                "INSERT OR REPLACE INTO imported_runs (run_id, source, imported_ms) VALUES (?1, ?2, ?3)",
                params![run_id.to_string(), source, at.unix_millis()],
            )?;
            Ok(())
        })?;
        Ok(())
    }

    /// Marks `run_id` as imported from `source` (tests: an import is
    /// `append_imported`, one transaction).
    #[cfg(test)]
    pub(crate) fn mark_imported(
        &self,
        run_id: RunId,
        source: &str,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let guard = self.writer()?;
        guard.conn.execute(
            "INSERT OR REPLACE INTO imported_runs (run_id, source, imported_ms) VALUES (?1, ?2, ?3)",
            params![run_id.to_string(), source, at.unix_millis()],
        )?;
        Ok(())
    }

    /// Every imported run with the bundle it came from (few: a listing
    /// marks them with one read).
    pub fn imported_sources(&self) -> Result<std::collections::HashMap<RunId, String>, StoreError> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached("SELECT run_id, source FROM imported_runs")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = std::collections::HashMap::new();
        for row in rows {
            let (id, source) = row?;
            let run_id = id.parse().map_err(|_| StoreError::Decode {
                run_id: id.clone(),
                seq: 0,
                detail: "an imported run's id is not a run id".into(),
            })?;
            out.insert(run_id, source);
        }
        Ok(out)
    }

    /// Where `run_id` was imported from; None for a run made here.
    pub fn imported(&self, run_id: RunId) -> Result<Option<Imported>, StoreError> {
        let conn = self.reader()?;
        let row: Option<(String, i64)> = conn
            .query_row(
                "SELECT source, imported_ms FROM imported_runs WHERE run_id = ?1",
                params![run_id.to_string()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(match row {
            Some((source, ms)) => Some(Imported {
                source,
                at: Timestamp::from_unix_millis(ms).ok_or_else(|| StoreError::Decode {
                    run_id: run_id.to_string(),
                    seq: 0,
                    detail: format!("the import time {ms} is out of range"),
                })?,
            }),
            None => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_marked_imported_with_its_source() {
        let (_dir, store) = crate::test_support::temp_store();
        let run = RunId::new();
        assert_eq!(store.imported(run).unwrap(), None);
        let at = Timestamp::from_unix_millis(1_800_000_000_000).unwrap();
        store.mark_imported(run, "bug.bearagent-run", at).unwrap();
        let imported = store.imported(run).unwrap().unwrap();
        assert_eq!(imported.source, "bug.bearagent-run");
        assert_eq!(imported.at, at);
        let sources = store.imported_sources().unwrap();
        assert_eq!(sources.len(), 1);
        assert_eq!(sources[&run], "bug.bearagent-run");
    }
}
