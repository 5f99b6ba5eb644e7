//! Opening the database: refuse newer schemas untouched, detect corrupt
//! files, apply PRAGMAs, run migrations.

use crate::error::StoreError;
use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{Migrations, M};
use std::path::Path;
use std::time::Duration;

/// How long a connection waits for a lock held by another connection.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const MIGRATIONS_SLICE: &[M<'static>] = &[
    M::up(
        r#"
CREATE TABLE events (
    id             INTEGER PRIMARY KEY,
    run_id         TEXT    NOT NULL,
    seq            INTEGER NOT NULL CHECK (seq >= 1),
    type           TEXT    NOT NULL,
    at             TEXT    NOT NULL,
    cause          INTEGER,
    schema_version INTEGER NOT NULL,
    payload        TEXT    NOT NULL,
    UNIQUE (run_id, seq)
);
CREATE TABLE runs (
    run_id        TEXT    PRIMARY KEY NOT NULL,
    workspace_id  TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    goal          TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    last_seq      INTEGER NOT NULL,
    projection    TEXT    NOT NULL
);
CREATE INDEX runs_by_workspace ON runs (workspace_id, created_at_ms DESC);
CREATE INDEX runs_by_created ON runs (created_at_ms DESC);
CREATE TABLE workspaces (
    workspace_id    TEXT    PRIMARY KEY NOT NULL,
    path            TEXT    NOT NULL UNIQUE,
    name            TEXT    NOT NULL,
    first_opened_ms INTEGER NOT NULL,
    last_opened_ms  INTEGER NOT NULL
);
CREATE INDEX workspaces_by_recency ON workspaces (last_opened_ms DESC);
CREATE TABLE blobs (
    hash       TEXT    PRIMARY KEY NOT NULL CHECK (length(hash) = 64),
    size       INTEGER NOT NULL,
    content    BLOB    NOT NULL,
    created_ms INTEGER NOT NULL
);
"#,
    ),
    M::up(
        r#"
CREATE TABLE run_owners (
    run_id  TEXT    PRIMARY KEY NOT NULL,
    owner   TEXT    NOT NULL,
    pid     INTEGER NOT NULL,
    program TEXT    NOT NULL
);
"#,
    ),
    M::up(
        r#"
CREATE TABLE imported_runs (
    run_id      TEXT    PRIMARY KEY NOT NULL,
    source      TEXT    NOT NULL,
    imported_ms INTEGER NOT NULL
);
"#,
    ),
    // Every start looks for runs left live by a process that died: on a
    // store of thousands of runs a scan read every run's projection row.
    M::up("CREATE INDEX runs_by_status ON runs (status);"),
    // Listing worktrees read the first event of every run ever (every
    // start of the app asks): an index of the few runs that have one.
    M::up(WORKTREE_RUNS),
];

const WORKTREE_RUNS: &str = concat!(
    "CREATE TABLE run_worktrees (
    run_id TEXT PRIMARY KEY NOT NULL,
    path   TEXT NOT NULL
);
",
    crate::worktree_index::fill_run_worktrees!()
);

pub(crate) const MIGRATIONS: Migrations<'static> = Migrations::from_slice(MIGRATIONS_SLICE);

/// The schema version this binary writes (SQLite `user_version`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS_SLICE.len() as i64;

fn open_conn(path: &Path, flags: OpenFlags) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

fn classify_open_error(path: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) | Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
            StoreError::Corrupt {
                path: path.to_path_buf(),
                detail: e.to_string(),
            }
        }
        _ => StoreError::from(e),
    }
}

/// Reads `user_version` without writing anything, so a database from a
/// newer BearAgent is refused before any PRAGMA could alter it.
fn stored_version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map_err(|e| classify_open_error(path, e))
}

fn apply_pragmas(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // FULL in WAL mode fsyncs each commit: an event is durable before anyone
    // acts on it.
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
    )
    .map_err(|e| classify_open_error(path, e))
}

/// How long a process waits for another one to finish migrating.
const MIGRATION_LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// Serialises opening and migrating across processes with an OS lock on
/// `<db>.migrate.lock`: two processes starting on a fresh folder would
/// otherwise both see version 0 and both create the tables. The second one
/// waits here and then finds the schema current.
#[expect(
    clippy::disallowed_methods,
    reason = "BearAgent's own data folder (instance and migration locks), never a user's"
)]
pub(crate) fn open_and_migrate(path: &Path) -> Result<Connection, StoreError> {
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".migrate.lock");
    let lock_path = std::path::PathBuf::from(lock_path);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|source| StoreError::Io {
            path: lock_path.clone(),
            source,
        })?;
    let waited_since = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock)
                if waited_since.elapsed() < MIGRATION_LOCK_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(StoreError::Busy),
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(StoreError::Io {
                    path: lock_path,
                    source,
                })
            }
        }
    }
    // Dropping `lock` at return releases it.
    migrate_locked(path)
}

fn migrate_locked(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = open_conn(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let found = stored_version(&conn, path)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    apply_pragmas(&conn, path)?;
    MIGRATIONS.to_latest(&mut conn)?;
    Ok(conn)
}

pub(crate) fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = open_conn(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.execute_batch("PRAGMA foreign_keys = ON;")?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Store, DB_FILE_NAME};

    #[test]
    fn migrations_are_valid() {
        assert!(MIGRATIONS.validate().is_ok());
    }

    #[test]
    fn a_new_database_is_at_the_current_schema_in_wal_mode() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let w = store.writer().unwrap();
        let version: i64 = w
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let mode: String = w
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_newer_database_is_refused_and_left_byte_for_byte_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE_NAME);
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
                .unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = Store::open(&path).err().unwrap();
        assert!(
            matches!(err, StoreError::NewerSchema { found: 99, supported, .. } if supported == SCHEMA_VERSION)
        );
        assert!(err
            .to_string()
            .contains("newer than this BearAgent supports"));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(!dir.path().join("bearagent.db-wal").exists());
    }

    #[test]
    fn a_file_that_is_not_a_database_is_reported_as_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE_NAME);
        std::fs::write(
            &path,
            b"this is not sqlite, just some text that is long enough to matter. ".repeat(20),
        )
        .unwrap();
        let before = std::fs::read(&path).unwrap();
        assert!(matches!(
            Store::open(&path),
            Err(StoreError::Corrupt { .. })
        ));
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_lock_held_by_another_connection_is_waited_for_then_reported_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let other = Connection::open(store.path()).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE;").unwrap();
        let w = store.writer().unwrap();
        w.conn.busy_timeout(Duration::from_millis(50)).unwrap();
        let err = w
            .conn
            .execute("INSERT INTO blobs VALUES (?1, 0, x'', 0)", ["a".repeat(64)])
            .map_err(StoreError::from)
            .err()
            .unwrap();
        assert!(matches!(err, StoreError::Busy));
    }
}
