use crate::test_support::temp_store;
use crate::{Store, DB_FILE_NAME, SCHEMA_VERSION};
use bearagent_kernel::testkit::{at, run_created};
use bearagent_kernel::{EventPayload, EventSeq, NewEvent, RunId, WorkspaceId, Worktree};

fn worktree(path: &str) -> Worktree {
    Worktree {
        repo: "/repo".into(),
        path: path.into(),
        branch: "bearagent/x".into(),
        base: "abc".into(),
        start: "abc".into(),
        carried_changes: false,
    }
}

/// A new run created at `ms`, in `worktree` when given.
fn create(store: &Store, ms: i64, worktree: Option<Worktree>) -> RunId {
    let run = RunId::new();
    let mut created = run_created(WorkspaceId::new(), "goal");
    if let EventPayload::RunCreated { worktree: w, .. } = &mut created {
        *w = worktree;
    }
    store
        .append(run, EventSeq(1), vec![NewEvent::new(at(ms), None, created)])
        .unwrap();
    run
}

#[test]
fn given_runs_with_and_without_worktrees_when_listed_then_only_worktree_runs_oldest_first() {
    let (_dir, store) = temp_store();
    let later = create(&store, 20, Some(worktree("/wt/b")));
    create(&store, 10, None);
    let earlier = create(&store, 5, Some(worktree("/wt/a")));
    create(&store, 30, None);
    assert_eq!(store.worktree_runs().unwrap(), vec![earlier, later]);
}

#[test]
fn given_a_store_from_before_the_index_when_opened_then_its_worktree_runs_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, in_worktree) = {
        let store = Store::open_in(dir.path()).unwrap();
        let plain = create(&store, 1, None);
        let in_worktree = create(&store, 2, Some(worktree("/wt/a")));
        (plain, in_worktree)
    };
    // As the previous schema left it: no index table, one version lower.
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE_NAME)).unwrap();
    conn.execute_batch(&format!(
        "DROP TABLE run_worktrees; PRAGMA user_version = {};",
        SCHEMA_VERSION - 1
    ))
    .unwrap();
    drop(conn);

    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(store.worktree_runs().unwrap(), vec![in_worktree]);
    assert!(store.get_run(plain).unwrap().is_some());
}

#[test]
fn given_a_lost_index_when_projections_are_rebuilt_then_it_is_filled_again() {
    let (_dir, store) = temp_store();
    let run = create(&store, 1, Some(worktree("/wt/a")));
    store
        .writer()
        .unwrap()
        .conn
        .execute("DELETE FROM run_worktrees", [])
        .unwrap();
    assert!(store.worktree_runs().unwrap().is_empty());
    store.rebuild_projections().unwrap();
    assert_eq!(store.worktree_runs().unwrap(), vec![run]);
}
