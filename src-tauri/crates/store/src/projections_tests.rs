use crate::test_support::temp_store;
use crate::{RunFilter, Store, SNAPSHOT_EVERY};
use bearagent_kernel::testkit::valid_run_from_choices;
use bearagent_kernel::{
    apply, EventEnvelope, EventSeq, NewEvent, RunId, RunProjection, WorkspaceId,
};

/// The row as stored: the snapshot's seq and status columns.
fn stored_row(store: &Store, run: RunId) -> (u64, String) {
    let conn = store.reader().unwrap();
    conn.query_row(
        "SELECT last_seq, status FROM runs WHERE run_id = ?1",
        [run.to_string()],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)),
    )
    .unwrap()
}

/// Appends `event` alone, as its run's loop would have.
fn append_as_recorded(store: &Store, event: &EventEnvelope) {
    store
        .append(
            event.run_id,
            event.seq,
            vec![NewEvent::new(event.at, event.cause, event.payload.clone())],
        )
        .unwrap();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
    /// Given a run appended one event at a time, when it is read after each
    /// append (here and from a second handle on the same file, as another
    /// process would), then it is the fold of every event so far, while the
    /// stored row is at most SNAPSHOT_EVERY events behind and never behind
    /// on its status.
    #[test]
    fn reads_are_the_latest_state_while_the_row_is_a_snapshot(
        choices in proptest::collection::vec(proptest::num::u8::ANY, 10..40),
    ) {
        let (dir, store) = temp_store();
        let other = Store::open_in(dir.path()).unwrap();
        let run = RunId::new();
        let events = valid_run_from_choices(run, WorkspaceId::new(), &choices);
        let mut expected: Option<RunProjection> = None;
        let mut lagged = false;
        for event in &events {
            append_as_recorded(&store, event);
            let now = apply(expected.as_ref(), event).unwrap();
            proptest::prop_assert_eq!(store.get_run(run).unwrap(), Some(now.clone()));
            proptest::prop_assert_eq!(other.get_run(run).unwrap(), Some(now.clone()));
            let listed = other
                .list_runs(&RunFilter { status: Some(now.status.name().to_owned()), ..RunFilter::default() })
                .unwrap();
            proptest::prop_assert_eq!(listed, vec![now.clone()], "listed under its current status");
            let (row_seq, row_status) = stored_row(&store, run);
            proptest::prop_assert_eq!(row_status.as_str(), now.status.name());
            proptest::prop_assert!(now.last_seq.get() - row_seq < SNAPSHOT_EVERY);
            lagged |= row_seq < now.last_seq.get();
            expected = Some(now);
        }
        proptest::prop_assert!(lagged || events.len() < 4, "the row is not rewritten on every event");
    }
}

/// Given a run whose row is behind its log, when another handle (a restart,
/// or another process) appends to it, then it continues from the latest
/// state, not from the stale row.
#[test]
fn an_append_after_a_reopen_continues_from_the_latest_state() {
    let (dir, store) = temp_store();
    let run = RunId::new();
    let events = valid_run_from_choices(run, WorkspaceId::new(), &[0; 12]);
    let (first, rest) = events.split_at(events.len() - 3);
    for event in first {
        append_as_recorded(&store, event);
    }
    assert!(
        stored_row(&store, run).0 < first.len() as u64,
        "the row is behind the log"
    );
    drop(store);
    let reopened = Store::open_in(dir.path()).unwrap();
    // The first handle's run is orphaned now; the new one takes it over.
    let claimed: Vec<RunId> = reopened
        .claim_orphaned_runs()
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(claimed, vec![run]);
    for event in rest {
        append_as_recorded(&reopened, event);
    }
    let folded = events
        .iter()
        .try_fold(None, |state: Option<RunProjection>, e| {
            apply(state.as_ref(), e).map(Some)
        })
        .unwrap();
    assert_eq!(reopened.get_run(run).unwrap(), folded);
    assert_eq!(
        reopened.next_seq(run).unwrap(),
        EventSeq(events.len() as u64 + 1)
    );
}
