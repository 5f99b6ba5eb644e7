//! Reading a whole run, or everything after a seq, page by page: callers
//! never see the page size.

use crate::error::StoreError;
use crate::store::Store;
use bearagent_kernel::{EventEnvelope, EventSeq, RunId};

/// Events a fold holds at once. An event is 840 bytes in memory, so a
/// 12 000-event run read whole was a 17 MB vector in the app (heaptrack,
/// the soak of issue 56), and its thousands of small allocations stayed
/// behind as fragments of the heap.
pub(crate) const FOLD_PAGE: u32 = 500;

impl Store {
    /// Every event of `run_id`, in order.
    pub fn all_events(&self, run_id: RunId) -> Result<Vec<EventEnvelope>, StoreError> {
        self.events_since(run_id, EventSeq(0))
    }

    /// Every event of `run_id` with seq greater than `after`, in order.
    pub fn events_since(
        &self,
        run_id: RunId,
        after: EventSeq,
    ) -> Result<Vec<EventEnvelope>, StoreError> {
        let mut events = Vec::new();
        self.visit_events_since(run_id, after, |page| {
            events.extend(page);
            Ok::<_, StoreError>(())
        })?;
        Ok(events)
    }

    /// Calls `visit` with the events of `run_id` after `after`, oldest
    /// first, [`FOLD_PAGE`] at a time: a fold over a long run holds one
    /// page, never the whole run.
    pub fn visit_events_since<E: From<StoreError>>(
        &self,
        run_id: RunId,
        mut after: EventSeq,
        mut visit: impl FnMut(Vec<EventEnvelope>) -> Result<(), E>,
    ) -> Result<(), E> {
        loop {
            let page = self.events_after(run_id, after, FOLD_PAGE)?;
            let Some(last) = page.last() else {
                return Ok(());
            };
            after = last.seq;
            let full = page.len() == FOLD_PAGE as usize;
            visit(page)?;
            if !full {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::temp_store;
    use bearagent_kernel::testkit::{at, run_created};
    use bearagent_kernel::{EventPayload, EventSeq, NewEvent, RunId, WorkspaceId};

    fn observed() -> NewEvent {
        NewEvent::new(
            at(2),
            None,
            EventPayload::ExternalChangeObserved {
                path: "a.txt".into(),
                hash: None,
            },
        )
    }

    /// A run of `total` events: created, started, then observations.
    fn run_of(store: &crate::Store, total: u64) -> RunId {
        let run = RunId::new();
        let start = vec![
            NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "goal")),
            NewEvent::new(at(1), None, EventPayload::RunStarted),
        ];
        store.append(run, EventSeq(1), start).unwrap();
        let mut next = 3;
        while next <= total {
            let n = (total - next + 1).min(1000);
            let chunk = (0..n).map(|_| observed()).collect();
            store.append(run, EventSeq(next), chunk).unwrap();
            next += n;
        }
        run
    }

    #[test]
    fn given_more_events_than_a_page_when_read_whole_then_every_one_comes_back_in_order() {
        let (_dir, store) = temp_store();
        let total = u64::from(crate::MAX_PAGE) + 7;
        let run = run_of(&store, total);
        let all = store.all_events(run).unwrap();
        assert_eq!(all.len() as u64, total);
        assert!(all.windows(2).all(|w| w[1].seq.0 == w[0].seq.0 + 1));
        let tail = store.events_since(run, EventSeq(total - 3)).unwrap();
        let seqs: Vec<u64> = tail.iter().map(|e| e.seq.0).collect();
        assert_eq!(seqs, [total - 2, total - 1, total]);
    }

    #[test]
    fn given_a_long_run_when_visited_then_every_event_comes_once_in_order_a_page_at_a_time() {
        let (_dir, store) = temp_store();
        let total = 2 * u64::from(super::FOLD_PAGE) + 3;
        let run = run_of(&store, total);
        let mut seqs = Vec::new();
        let mut pages = Vec::new();
        store
            .visit_events_since(run, EventSeq(1), |page| {
                pages.push(page.len());
                seqs.extend(page.iter().map(|e| e.seq.0));
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        assert_eq!(seqs, (2..=total).collect::<Vec<_>>());
        assert!(pages.iter().all(|&n| n <= super::FOLD_PAGE as usize));
        let mut none = 0;
        store
            .visit_events_since(run, EventSeq(total), |page| {
                none += page.len();
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        assert_eq!(none, 0);
    }
}
