use crate::test_support::temp_store;
use crate::{RunFilter, StoreError};
use bearagent_kernel::testkit::{at, run_created, valid_run_from_choices};
use bearagent_kernel::{
    EventPayload, EventSeq, NewEvent, ReduceError, RunId, RunStatus, WorkspaceId,
};

fn new(ms: i64, payload: EventPayload) -> NewEvent {
    NewEvent::new(at(ms), None, payload)
}

fn create(store: &crate::Store, workspace: WorkspaceId) -> RunId {
    let run = RunId::new();
    store
        .append(
            run,
            EventSeq(1),
            vec![
                new(0, run_created(workspace, "goal")),
                new(1, EventPayload::RunStarted),
            ],
        )
        .unwrap();
    run
}

#[test]
fn append_assigns_seqs_and_maintains_the_projection() {
    let (_dir, store) = temp_store();
    let ws = WorkspaceId::new();
    let run = create(&store, ws);
    let stamped = store
        .append(
            run,
            EventSeq(3),
            vec![new(
                2,
                EventPayload::RunSucceeded {
                    answer: "ok".into(),
                },
            )],
        )
        .unwrap();
    assert_eq!(stamped[0].seq, EventSeq(3));
    assert_eq!(stamped[0].run_id, run);
    let p = store.get_run(run).unwrap().unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.last_seq, EventSeq(3));
    let events = store.events_after(run, EventSeq(0), 100).unwrap();
    assert_eq!(
        events.iter().map(|e| e.seq.get()).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(store.next_seq(run).unwrap(), EventSeq(4));
}

#[test]
fn a_stale_expected_seq_is_a_conflict_and_writes_nothing() {
    let (_dir, store) = temp_store();
    let run = create(&store, WorkspaceId::new());
    let err = store
        .append(
            run,
            EventSeq(2),
            vec![new(2, EventPayload::RunCancelled { reason: None })],
        )
        .unwrap_err();
    assert!(matches!(
        err,
        StoreError::Conflict {
            expected: EventSeq(2),
            actual: EventSeq(3),
            ..
        }
    ));
    assert_eq!(store.events_after(run, EventSeq(0), 100).unwrap().len(), 2);
    assert_eq!(
        store.get_run(run).unwrap().unwrap().status,
        RunStatus::Running
    );
}

#[test]
fn a_batch_with_one_impossible_event_writes_none_of_it() {
    let (_dir, store) = temp_store();
    let run = create(&store, WorkspaceId::new());
    let err = store
        .append(
            run,
            EventSeq(3),
            vec![
                new(2, EventPayload::RunCancelled { reason: None }),
                new(3, EventPayload::RunStarted),
            ],
        )
        .unwrap_err();
    assert!(matches!(
        err,
        StoreError::Rejected {
            source: ReduceError::AfterTerminal { .. },
            ..
        }
    ));
    assert_eq!(store.next_seq(run).unwrap(), EventSeq(3));
    assert_eq!(
        store.get_run(run).unwrap().unwrap().status,
        RunStatus::Running
    );
}

#[test]
fn a_payload_that_cannot_be_decoded_names_the_run_and_seq() {
    let (_dir, store) = temp_store();
    let run = create(&store, WorkspaceId::new());
    store
        .writer()
        .unwrap()
        .conn
        .execute(
            "UPDATE events SET payload = '{\"type\":\"from_the_future\"}' WHERE seq = 2",
            [],
        )
        .unwrap();
    let err = store.events_after(run, EventSeq(0), 10).unwrap_err();
    match &err {
        StoreError::Decode { run_id, seq, .. } => {
            assert_eq!(run_id, &run.to_string());
            assert_eq!(*seq, 2);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains(&format!("event 2 of run {run}")));
    // The readable event before it is still readable on its own.
    assert_eq!(store.events_after(run, EventSeq(0), 1).unwrap().len(), 1);
}

#[test]
fn events_from_a_newer_event_schema_are_refused() {
    let (_dir, store) = temp_store();
    let run = create(&store, WorkspaceId::new());
    store
        .writer()
        .unwrap()
        .conn
        .execute("UPDATE events SET schema_version = 99 WHERE seq = 1", [])
        .unwrap();
    let err = store.events_after(run, EventSeq(0), 10).unwrap_err();
    assert!(err.to_string().contains("event schema 99"));
}

#[test]
fn paging_returns_events_after_a_seq_in_order() {
    let (_dir, store) = temp_store();
    let run = RunId::new();
    let events = valid_run_from_choices(run, WorkspaceId::new(), &[0, 1, 2, 0, 1, 3, 0]);
    let total = events.len() as u64;
    let news = events
        .into_iter()
        .map(|e| NewEvent::new(e.at, e.cause, e.payload))
        .collect();
    store.append(run, EventSeq(1), news).unwrap();
    let page = store.events_after(run, EventSeq(5), 4).unwrap();
    assert_eq!(
        page.iter().map(|e| e.seq.get()).collect::<Vec<_>>(),
        vec![6, 7, 8, 9]
    );
    let rest = store.events_after(run, EventSeq(9), 1000).unwrap();
    assert_eq!(rest.last().unwrap().seq.get(), total);
}

#[test]
fn runs_are_listed_newest_first_and_filtered_by_workspace() {
    let (_dir, store) = temp_store();
    let ws_a = WorkspaceId::new();
    let ws_b = WorkspaceId::new();
    let r1 = create(&store, ws_a);
    let r2 = create(&store, ws_b);
    let r3 = create(&store, ws_a);
    // Same created_at: ties break by the time-ordered run id.
    let all: Vec<_> = store
        .list_runs(&RunFilter::default())
        .unwrap()
        .into_iter()
        .map(|p| p.run_id)
        .collect();
    assert_eq!(all, vec![r3, r2, r1]);
    let only_a: Vec<_> = store
        .list_runs(&RunFilter {
            workspace_id: Some(ws_a),
            ..RunFilter::default()
        })
        .unwrap()
        .into_iter()
        .map(|p| p.run_id)
        .collect();
    assert_eq!(only_a, vec![r3, r1]);
    let running = store
        .list_runs(&RunFilter {
            status: Some("running".into()),
            text: Some("GOA".into()),
            ..RunFilter::default()
        })
        .unwrap();
    assert_eq!(running.len(), 3);
    let none = store
        .list_runs(&RunFilter {
            text: Some("100%_".into()),
            ..RunFilter::default()
        })
        .unwrap();
    assert!(none.is_empty());
    let failed = store
        .list_runs(&RunFilter {
            status: Some("failed".into()),
            ..RunFilter::default()
        })
        .unwrap();
    assert!(failed.is_empty());
}

#[test]
fn reopening_the_store_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let run = {
        let store = crate::Store::open_in(dir.path()).unwrap();
        create(&store, WorkspaceId::new())
    };
    let store = crate::Store::open_in(dir.path()).unwrap();
    assert_eq!(
        store.get_run(run).unwrap().unwrap().status,
        RunStatus::Running
    );
    // A live run of a store that is gone is taken over before appending.
    assert!(matches!(
        store.append(
            run,
            EventSeq(3),
            vec![new(3, EventPayload::RunCancelled { reason: None })],
        ),
        Err(StoreError::NotOwner { .. })
    ));
    let taken: Vec<RunId> = store
        .claim_orphaned_runs()
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(taken, vec![run]);
    store
        .append(
            run,
            EventSeq(3),
            vec![new(3, EventPayload::RunCancelled { reason: None })],
        )
        .unwrap();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn rebuilt_projections_equal_incrementally_maintained_ones(
        runs in proptest::collection::vec(
            (proptest::collection::vec(proptest::num::u8::ANY, 0..30), 1usize..5),
            1..5,
        )
    ) {
        let (_dir, store) = temp_store();
        for (choices, batch) in &runs {
            let run = RunId::new();
            let events = valid_run_from_choices(run, WorkspaceId::new(), choices);
            let mut next = EventSeq(1);
            for chunk in events.chunks(*batch) {
                let news = chunk.iter().map(|e| NewEvent::new(e.at, e.cause, e.payload.clone())).collect();
                let stamped = store.append(run, next, news).unwrap();
                next = stamped.last().unwrap().seq.next();
            }
        }
        let incremental = store.list_runs(&RunFilter::default()).unwrap();
        let rebuilt_count = store.rebuild_projections().unwrap();
        let rebuilt = store.list_runs(&RunFilter::default()).unwrap();
        proptest::prop_assert_eq!(rebuilt_count, runs.len());
        proptest::prop_assert_eq!(incremental, rebuilt);
    }
}

#[test]
fn rebuild_refuses_to_apply_an_illegal_history_and_keeps_the_old_projection() {
    let (_dir, store) = temp_store();
    let run = create(&store, WorkspaceId::new());
    store
        .writer()
        .unwrap()
        .conn
        .execute(
            "UPDATE events SET payload = '{\"type\":\"run_succeeded\",\"answer\":\"x\"}', type = 'run_succeeded' WHERE seq = 2",
            [],
        )
        .unwrap();
    assert!(matches!(
        store.rebuild_projections(),
        Err(StoreError::Rebuild { .. })
    ));
    assert_eq!(
        store.get_run(run).unwrap().unwrap().status,
        RunStatus::Running
    );
}
