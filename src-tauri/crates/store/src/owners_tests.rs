//! Two stores on one folder stand for two BearAgent processes: each holds
//! its own instance lock, exactly as separate processes do.

use crate::{Ownership, Store, StoreError};
use bearagent_kernel::testkit::{at, run_created};
use bearagent_kernel::{EventPayload, EventSeq, NewEvent, RunId, RunStatus, WorkspaceId};

fn new(payload: EventPayload) -> NewEvent {
    NewEvent::new(at(0), None, payload)
}

fn start(store: &Store) -> RunId {
    let run = RunId::new();
    store
        .append(
            run,
            EventSeq(1),
            vec![
                new(run_created(WorkspaceId::new(), "goal")),
                new(EventPayload::RunStarted),
            ],
        )
        .unwrap();
    run
}

/// The runs a store takes over at start-up.
fn claimed(store: &Store) -> Vec<RunId> {
    store
        .claim_orphaned_runs()
        .unwrap()
        .into_iter()
        .map(|(run, _)| run)
        .collect()
}

fn interrupt(store: &Store, run: RunId) -> Result<(), StoreError> {
    let next = store.next_seq(run)?;
    store
        .append(
            run,
            next,
            vec![new(EventPayload::RunInterrupted {
                reason: "test".into(),
            })],
        )
        .map(|_| ())
}

#[test]
fn given_a_live_run_of_another_process_when_this_one_appends_then_it_is_refused_and_nothing_written(
) {
    let home = tempfile::tempdir().unwrap();
    let owner = Store::open_in(home.path()).unwrap();
    let other = Store::open_in(home.path()).unwrap();
    let run = start(&owner);

    let err = interrupt(&other, run).unwrap_err();
    assert!(
        matches!(&err, StoreError::NotOwner { pid, .. } if *pid == std::process::id()),
        "{err}"
    );
    assert!(err.to_string().contains("another BearAgent process"));
    assert_eq!(other.next_seq(run).unwrap(), EventSeq(3));
    assert_eq!(
        other.ownership(run).unwrap(),
        Ownership::Elsewhere(owner.instance().clone())
    );
    assert_eq!(owner.ownership(run).unwrap(), Ownership::Here);
    // Its startup reconciliation leaves the live owner's run alone.
    assert!(claimed(&other).is_empty());
    assert_eq!(
        other.ownership(run).unwrap(),
        Ownership::Elsewhere(owner.instance().clone())
    );
    // The owner goes on.
    interrupt(&owner, run).unwrap();
}

#[test]
fn given_the_owner_is_gone_when_another_process_starts_then_it_takes_the_run_over() {
    let home = tempfile::tempdir().unwrap();
    let owner = Store::open_in(home.path()).unwrap();
    let run = start(&owner);
    let lock_file = home
        .path()
        .join("owners")
        .join(format!("{}.lock", owner.instance().instance));
    assert!(lock_file.is_file());
    drop(owner);

    let next = Store::open_in(home.path()).unwrap();
    assert_eq!(next.ownership(run).unwrap(), Ownership::Nobody);
    assert_eq!(claimed(&next), vec![run]);
    assert_eq!(next.ownership(run).unwrap(), Ownership::Here);
    interrupt(&next, run).unwrap();
    assert_eq!(
        next.get_run(run).unwrap().unwrap().status,
        RunStatus::Interrupted
    );
    // Settled: a later start finds nothing to take over.
    let later = Store::open_in(home.path()).unwrap();
    assert!(claimed(&later).is_empty());
}

#[test]
fn a_killed_owner_leaves_its_lock_file_but_not_its_lock() {
    let home = tempfile::tempdir().unwrap();
    let owner = Store::open_in(home.path()).unwrap();
    let run = start(&owner);
    let instance = owner.instance().instance.clone();
    let lock_file = home.path().join("owners").join(format!("{instance}.lock"));
    // What SIGKILL leaves: the file stays, the kernel drops the lock.
    std::mem::forget(owner);
    let stale = std::fs::OpenOptions::new()
        .write(true)
        .open(&lock_file)
        .unwrap();
    drop(stale);
    // The forgotten store still holds its descriptor (same process), so
    // the lock is still held: a live owner is never taken over.
    let next = Store::open_in(home.path()).unwrap();
    assert!(claimed(&next).is_empty());

    // A second run whose owner's lock file exists but is unlocked.
    let dead = "0123456789abcdef0123456789abcdef";
    std::fs::write(home.path().join("owners").join(format!("{dead}.lock")), "").unwrap();
    let run2 = RunId::new();
    next.append(
        run2,
        EventSeq(1),
        vec![
            new(run_created(WorkspaceId::new(), "g2")),
            new(EventPayload::RunStarted),
        ],
    )
    .unwrap();
    {
        let w = next.writer().unwrap();
        w.conn
            .execute(
                "UPDATE run_owners SET owner = ?1, pid = 4242 WHERE run_id = ?2",
                [dead, &run2.to_string()],
            )
            .unwrap();
    }
    assert_eq!(claimed(&next), vec![run2]);
    assert!(!home
        .path()
        .join("owners")
        .join(format!("{dead}.lock"))
        .exists());
    let _ = run;
}

#[test]
fn an_owner_id_that_is_not_ours_never_names_a_file() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open_in(home.path()).unwrap();
    let run = start(&store);
    std::fs::write(home.path().join("victim.lock"), "keep").unwrap();
    {
        let w = store.writer().unwrap();
        w.conn
            .execute(
                "UPDATE run_owners SET owner = '../victim' WHERE run_id = ?1",
                [run.to_string()],
            )
            .unwrap();
    }
    assert_eq!(claimed(&store), vec![run]);
    assert!(home.path().join("victim.lock").is_file());
}

#[test]
fn a_finished_run_takes_review_events_from_any_process() {
    let home = tempfile::tempdir().unwrap();
    let owner = Store::open_in(home.path()).unwrap();
    let other = Store::open_in(home.path()).unwrap();
    let run = start(&owner);
    owner
        .append(
            run,
            EventSeq(3),
            vec![new(EventPayload::RunSucceeded {
                answer: "done".into(),
            })],
        )
        .unwrap();
    // Finished: nobody executes it any more.
    assert_eq!(other.ownership(run).unwrap(), Ownership::Nobody);
    assert_eq!(owner.ownership(run).unwrap(), Ownership::Nobody);
    // The reducer, not ownership, decides what a finished run accepts.
    let err = interrupt(&other, run).unwrap_err();
    assert!(matches!(err, StoreError::Rejected { .. }), "{err}");
}

#[test]
fn stores_opened_at_once_on_a_fresh_folder_all_migrate_cleanly() {
    let home = tempfile::tempdir().unwrap();
    let handles: Vec<_> = (0..6)
        .map(|_| {
            let path = home.path().to_path_buf();
            std::thread::spawn(move || Store::open_in(&path).map(|s| start(&s)))
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
    let store = Store::open_in(home.path()).unwrap();
    assert_eq!(store.list_runs(&Default::default()).unwrap().len(), 6);
}

#[test]
fn of_two_processes_resuming_an_interrupted_run_exactly_one_becomes_its_owner() {
    let home = tempfile::tempdir().unwrap();
    let crashed = Store::open_in(home.path()).unwrap();
    let run = start(&crashed);
    drop(crashed);
    let a = Store::open_in(home.path()).unwrap();
    let b = Store::open_in(home.path()).unwrap();
    assert_eq!(claimed(&a), vec![run]);
    interrupt(&a, run).unwrap();
    // b's own view is stale: it resumes at the same seq as a.
    let next = b.next_seq(run).unwrap();
    a.append(run, next, vec![new(EventPayload::RunResumed)])
        .unwrap();
    let err = b
        .append(run, next, vec![new(EventPayload::RunResumed)])
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err}");
    let next = b.next_seq(run).unwrap();
    let err = b
        .append(run, next, vec![new(EventPayload::RunResumed)])
        .unwrap_err();
    assert!(matches!(err, StoreError::NotOwner { .. }), "{err}");
    assert_eq!(a.ownership(run).unwrap(), Ownership::Here);
    assert!(matches!(b.ownership(run).unwrap(), Ownership::Elsewhere(_)));
}

#[test]
fn a_store_that_appended_last_still_sees_what_another_process_appended_since() {
    let home = tempfile::tempdir().unwrap();
    let first = Store::open_in(home.path()).unwrap();
    let second = Store::open_in(home.path()).unwrap();
    let run = start(&first);
    // `first` caches the run's end (seq 3) and itself as its owner.
    interrupt(&first, run).unwrap();
    second
        .append(run, EventSeq(4), vec![new(EventPayload::RunResumed)])
        .unwrap();
    // Its cache is stale: the end moved and so did the owner.
    let succeeded = || {
        vec![new(EventPayload::RunSucceeded {
            answer: "done".into(),
        })]
    };
    let err = first.append(run, EventSeq(4), succeeded()).unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err}");
    let err = first.append(run, EventSeq(5), succeeded()).unwrap_err();
    assert!(matches!(err, StoreError::NotOwner { .. }), "{err}");
    assert_eq!(second.ownership(run).unwrap(), Ownership::Here);
}
