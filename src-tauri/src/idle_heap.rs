//! When the app process gives its freed heap back (`bearagent_heap`):
//! while no run is in progress, once the page is idle or new, and a moment
//! after the page has paged in a run's events. A run leaves its heap
//! scattered, and so does a page opening a long run (a 12 000-event run is
//! read, serialised and sent in pages): glibc keeps what they freed
//! (measured: +15 MB after a 2 000-step run, bench:soak).

use bearagent_runtime::Application;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long after the last page of events the burst is over.
const AFTER_BURST: Duration = Duration::from_secs(1);

/// Counts bursts, so only the last page's timer asks.
#[derive(Default)]
pub struct HeapKeeper {
    pages: Arc<AtomicU64>,
}

impl HeapKeeper {
    /// A page of events was sent: give back once no other follows soon.
    /// Called from a command, on the async runtime.
    pub fn after_page(&self, app: Arc<Application>) {
        self.once_quiet(move || give_back_unless_running(&app));
    }

    /// Runs `then` `AFTER_BURST` after this call unless another came since.
    fn once_quiet(&self, then: impl FnOnce() + Send + 'static) {
        let mine = self.pages.fetch_add(1, Ordering::Relaxed) + 1;
        let pages = self.pages.clone();
        tokio::spawn(async move {
            tokio::time::sleep(AFTER_BURST).await;
            if pages.load(Ordering::Relaxed) == mine {
                then();
            }
        });
    }
}

/// Asks only while no run is in progress: the trim holds the heap's lock
/// for its walk (milliseconds), and a run would only fill it again.
pub fn give_back_unless_running(app: &Application) {
    if app.active_runs().is_empty() {
        give_back();
    }
}

/// For a caller that has just seen no run in progress.
pub fn give_back() {
    let gave = bearagent_heap::give_back_freed();
    tracing::debug!(gave, "asked glibc to give its free heap back");
}

#[cfg(test)]
mod tests {
    use super::{HeapKeeper, AFTER_BURST};
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_pages_gives_back_once_after_its_last_page() {
        let keeper = HeapKeeper::default();
        let asked = Arc::new(AtomicU32::new(0));
        let page = |keeper: &HeapKeeper| {
            let asked = asked.clone();
            keeper.once_quiet(move || {
                asked.fetch_add(1, Ordering::Relaxed);
            });
        };
        for _ in 0..3 {
            page(&keeper);
            tokio::time::sleep(AFTER_BURST / 2).await;
        }
        assert_eq!(asked.load(Ordering::Relaxed), 0, "pages still coming");
        tokio::time::sleep(AFTER_BURST).await;
        assert_eq!(asked.load(Ordering::Relaxed), 1, "once, after the last");

        page(&keeper);
        tokio::time::sleep(AFTER_BURST + Duration::from_millis(1)).await;
        assert_eq!(
            asked.load(Ordering::Relaxed),
            2,
            "a later page is a new burst"
        );
    }
}
