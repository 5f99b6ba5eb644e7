//! Showing runs that other BearAgent processes execute (a CLI run, a second
//! window) live: a thread polls the store's change feed a few times a
//! second — one `PRAGMA data_version` when nothing changed, no busy loop —
//! and publishes the other processes' new events on the live bus, exactly
//! as if they had been committed here. Front ends deduplicate by seq.
//!
//! Every few seconds it also reconciles runs whose owner died meanwhile (a
//! CLI run killed while the app is open), so they show Interrupted now
//! rather than at the next start.

use crate::live::{LiveBus, LiveEvent};
use crate::run::reconcile::reconcile_unfinished;
use crate::AppError;
use bearagent_kernel::Clock;
use bearagent_store::{Ownership, Store};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the feed is polled: fast enough to look live, and an idle
/// poll costs one PRAGMA.
pub const FOLLOW_INTERVAL: Duration = Duration::from_millis(200);

/// Every this many polls, runs of dead owners are reconciled (~2 s).
const RECONCILE_EVERY: u32 = 10;

/// The running follower; stops (and joins) when dropped.
pub struct Follower {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Follower {
    pub fn start(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        live: LiveBus,
    ) -> Result<Follower, AppError> {
        let mut feed = store.change_feed()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("bearagent-follow".into())
            .spawn(move || {
                let mut polls = 0u32;
                while !stopping.load(Ordering::Relaxed) {
                    std::thread::sleep(FOLLOW_INTERVAL);
                    polls = polls.wrapping_add(1);
                    if polls.is_multiple_of(RECONCILE_EVERY) {
                        if let Err(e) = reconcile_unfinished(&store, &clock, &live) {
                            tracing::warn!(error = %e, "could not reconcile runs of stopped processes");
                        }
                    }
                    if let Err(e) = publish_new(&store, &live, &mut feed) {
                        tracing::warn!(error = %e, "could not read other processes' events");
                    }
                }
            })
            .map_err(|e| AppError::Internal(format!("cannot start the run follower: {e}")))?;
        Ok(Follower {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn publish_new(
    store: &Store,
    live: &LiveBus,
    feed: &mut bearagent_store::ChangeFeed,
) -> Result<(), AppError> {
    for (run_id, after) in feed.poll()? {
        // This process's own runs publish their events as they commit.
        if store.ownership(run_id)? == Ownership::Here {
            continue;
        }
        store.visit_events_since(run_id, after, |page| {
            for event in page {
                live.publish(LiveEvent::Committed(Arc::new(event)));
            }
            Ok::<_, AppError>(())
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::{at, run_created};
    use bearagent_kernel::{EventPayload, EventSeq, NewEvent, RunId, WorkspaceId};

    #[tokio::test]
    async fn events_another_process_commits_reach_the_live_bus() {
        let home = tempfile::tempdir().unwrap();
        let here = Arc::new(Store::open_in(home.path()).unwrap());
        let there = Store::open_in(home.path()).unwrap();
        let live = LiveBus::new();
        let mut rx = live.subscribe();
        let clock: Arc<dyn Clock> = Arc::new(bearagent_kernel::FixedClock(at(5)));
        let follower = Follower::start(here.clone(), clock, live.clone()).unwrap();

        let run = RunId::new();
        there
            .append(
                run,
                EventSeq(1),
                vec![
                    NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "cli run")),
                    NewEvent::new(at(1), None, EventPayload::RunStarted),
                ],
            )
            .unwrap();
        let mut seqs = Vec::new();
        while seqs.len() < 2 {
            let got = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(got.run_id(), run);
            if let LiveEvent::Committed(e) = got {
                seqs.push(e.seq.get());
            }
        }
        assert_eq!(seqs, vec![1, 2]);

        // A run of this process is not published twice: what the follower
        // publishes up to a later poll than the one that saw it (two marks
        // from the other process, the second appended once the first is
        // in) is only the marks.
        let mine = RunId::new();
        here.append(
            mine,
            EventSeq(1),
            vec![NewEvent::new(
                at(0),
                None,
                run_created(WorkspaceId::new(), "mine"),
            )],
        )
        .unwrap();
        let mark = RunId::new();
        let first = NewEvent::new(at(0), None, run_created(WorkspaceId::new(), "mark"));
        there.append(mark, EventSeq(1), vec![first]).unwrap();
        let mut published = published_through(&mut rx, mark, EventSeq(1)).await;
        let second = NewEvent::new(at(1), None, EventPayload::RunStarted);
        there.append(mark, EventSeq(2), vec![second]).unwrap();
        published.extend(published_through(&mut rx, mark, EventSeq(2)).await);
        assert_eq!(published, [(mark, 1), (mark, 2)]);

        // The other process dies with its run live: within a few seconds
        // this one reconciles it, without waiting for a restart.
        drop(there);
        let interrupted = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if let Ok(LiveEvent::Committed(e)) = rx.recv().await {
                    if e.run_id == run && matches!(e.payload, EventPayload::RunInterrupted { .. }) {
                        return e.seq;
                    }
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(interrupted, EventSeq(3));
        drop(follower);
    }

    /// The (run, seq) of every event published until `run`'s `seq`, that
    /// one included (waiting up to 5 s for it).
    async fn published_through(
        rx: &mut tokio::sync::broadcast::Receiver<LiveEvent>,
        run: RunId,
        seq: EventSeq,
    ) -> Vec<(RunId, u64)> {
        let mut published = Vec::new();
        while !published.contains(&(run, seq.get())) {
            let got = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            if let LiveEvent::Committed(e) = got {
                published.push((e.run_id, e.seq.get()));
            }
        }
        published
    }
}
