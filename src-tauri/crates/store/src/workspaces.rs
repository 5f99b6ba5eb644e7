//! Recent workspaces.

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::{Timestamp, WorkspaceId};
use rusqlite::{params, OptionalExtension, Row};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRecord {
    pub id: WorkspaceId,
    /// Canonical absolute path of the folder.
    pub path: String,
    pub name: String,
    pub last_opened_at: Timestamp,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<(String, String, String, i64)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

fn decode(
    (id, path, name, ms): (String, String, String, i64),
) -> Result<WorkspaceRecord, StoreError> {
    let bad = |detail: String| StoreError::DecodeProjection {
        run_id: format!("workspace {id}"),
        detail,
    };
    Ok(WorkspaceRecord {
        id: id.parse().map_err(|e| bad(format!("{e}")))?,
        last_opened_at: Timestamp::from_unix_millis(ms)
            .ok_or_else(|| bad(format!("bad time {ms}")))?,
        path,
        name,
    })
}

impl Store {
    /// Records that the workspace at `path` was opened now; the same path
    /// keeps its id across opens.
    pub fn touch_workspace(
        &self,
        path: &str,
        name: &str,
        at: Timestamp,
    ) -> Result<WorkspaceRecord, StoreError> {
        let guard = self.writer()?;
        let ms = at.unix_millis();
        guard.conn.execute(
            "INSERT INTO workspaces (workspace_id, path, name, first_opened_ms, last_opened_ms)
             VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (path) DO UPDATE SET last_opened_ms = excluded.last_opened_ms,
                 name = excluded.name",
            params![WorkspaceId::new().to_string(), path, name, ms],
        )?;
        let row = guard.conn.query_row(
            "SELECT workspace_id, path, name, last_opened_ms FROM workspaces WHERE path = ?1",
            [path],
            from_row,
        )?;
        decode(row)
    }

    /// Workspaces, most recently opened first.
    pub fn recent_workspaces(&self, limit: u32) -> Result<Vec<WorkspaceRecord>, StoreError> {
        let conn = self.reader()?;
        let mut stmt = conn.prepare_cached(
            "SELECT workspace_id, path, name, last_opened_ms FROM workspaces
             ORDER BY last_opened_ms DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit], from_row)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(decode(row?)?);
        }
        Ok(out)
    }

    pub fn workspace_by_path(&self, path: &str) -> Result<Option<WorkspaceRecord>, StoreError> {
        let conn = self.reader()?;
        conn.query_row(
            "SELECT workspace_id, path, name, last_opened_ms FROM workspaces WHERE path = ?1",
            [path],
            from_row,
        )
        .optional()?
        .map(decode)
        .transpose()
    }

    pub fn workspace(&self, id: WorkspaceId) -> Result<Option<WorkspaceRecord>, StoreError> {
        let conn = self.reader()?;
        conn.query_row(
            "SELECT workspace_id, path, name, last_opened_ms FROM workspaces WHERE workspace_id = ?1",
            [id.to_string()],
            from_row,
        )
        .optional()?
        .map(decode)
        .transpose()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::temp_store;
    use bearagent_kernel::Timestamp;

    fn t(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_800_000_000_000 + ms).unwrap()
    }

    #[test]
    fn reopening_a_path_keeps_its_id_and_moves_it_to_the_front() {
        let (_dir, store) = temp_store();
        let a = store.touch_workspace("/w/a", "a", t(1)).unwrap();
        let b = store.touch_workspace("/w/b", "b", t(2)).unwrap();
        let recent = store.recent_workspaces(10).unwrap();
        assert_eq!(
            recent.iter().map(|w| w.id).collect::<Vec<_>>(),
            vec![b.id, a.id]
        );
        let a2 = store.touch_workspace("/w/a", "a", t(3)).unwrap();
        assert_eq!(a2.id, a.id);
        assert_eq!(a2.last_opened_at, t(3));
        let recent = store.recent_workspaces(1).unwrap();
        assert_eq!(recent.len(), 1);
        assert_eq!(recent[0].id, a.id);
        assert_eq!(store.workspace(b.id).unwrap().unwrap().path, "/w/b");
    }
}
