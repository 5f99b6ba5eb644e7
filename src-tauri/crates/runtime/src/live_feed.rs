//! Live updates a page pulls instead of being pushed: a bounded queue with
//! a cursor. Each push into a WebKit page is a script evaluation, and the
//! web process keeps memory for every one (bench `eval-probe.sh`: 16 000
//! events pushed in batches of 8 cost it +22 MB, pulled +10 MB); a page
//! that asks with a long poll is answered over IPC, with no evaluation.
//!
//! One reader is expected (the window). Its cursor acknowledges what it
//! has: items before it are dropped. A reader that falls further behind
//! than the capacity is told how many it missed (`skipped`) and pages the
//! store, as it does for any gap in a run's seqs.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// Items after a cursor; `cursor` is what to ask with next.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedPage<T> {
    pub cursor: u64,
    pub items: Vec<T>,
    /// Items dropped (over capacity) before the reader took them.
    pub skipped: u64,
}

/// How a reader waits: at most `wait` for a first item; at most
/// `max_items` per answer. A burst arrives as one push (the shell's
/// forwarder batches the bus per 16 ms), so one answer holds it.
#[derive(Debug, Clone, Copy)]
pub struct FeedWait {
    pub wait: Duration,
    pub max_items: usize,
}

impl Default for FeedWait {
    fn default() -> Self {
        Self {
            // Under any IPC timeout, long enough that an idle window asks rarely.
            wait: Duration::from_secs(25),
            max_items: 512,
        }
    }
}

struct Queue<T> {
    items: VecDeque<T>,
    /// Index of `items[0]` since the feed began.
    first: u64,
}

impl<T> Queue<T> {
    fn end(&self) -> u64 {
        self.first + self.items.len() as u64
    }
}

pub struct LiveFeed<T> {
    queue: Mutex<Queue<T>>,
    /// The index after the last item pushed, for readers waiting on it.
    end: watch::Sender<u64>,
    capacity: usize,
}

impl<T: Clone> LiveFeed<T> {
    pub fn new(capacity: usize) -> Self {
        Self {
            queue: Mutex::new(Queue {
                items: VecDeque::new(),
                first: 0,
            }),
            end: watch::Sender::new(0),
            capacity: capacity.max(1),
        }
    }

    pub fn push(&self, items: impl IntoIterator<Item = T>) {
        let end = {
            let mut queue = self.lock();
            queue.items.extend(items);
            let over = queue.items.len().saturating_sub(self.capacity);
            queue.items.drain(..over);
            queue.first += over as u64;
            queue.end()
        };
        self.end.send_replace(end);
    }

    /// What came after `cursor`, waiting for it if nothing has yet. With
    /// no cursor (a page that just loaded) it answers at once with the
    /// current end: the reader starts from now. A cursor past the end (a
    /// page older than this feed) is treated as the end.
    pub async fn next(&self, cursor: Option<u64>, wait: FeedWait) -> FeedPage<T> {
        let Some(cursor) = cursor else {
            return self.take(u64::MAX, 0);
        };
        let mut end = self.end.subscribe();
        // Nothing after the cursor yet: wait (a cursor past the end is answered at once).
        if *end.borrow_and_update() == cursor {
            // Timed out or not, the answer is what is there now.
            let _ = tokio::time::timeout(wait.wait, end.wait_for(|end| *end != cursor)).await;
        }
        self.take(cursor, wait.max_items)
    }

    fn take(&self, cursor: u64, max_items: usize) -> FeedPage<T> {
        let mut queue = self.lock();
        let cursor = cursor.min(queue.end());
        // Acknowledged: the reader has everything before its cursor.
        let acknowledged = cursor
            .saturating_sub(queue.first)
            .min(queue.items.len() as u64);
        queue.items.drain(..acknowledged as usize);
        queue.first += acknowledged;
        let skipped = queue.first.saturating_sub(cursor);
        let start = cursor.max(queue.first);
        let items: Vec<T> = queue.items.iter().take(max_items).cloned().collect();
        FeedPage {
            cursor: start + items.len() as u64,
            items,
            skipped,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<T>> {
        // A panic while holding the lock leaves a queue that is still whole.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn answer(cursor: u64, items: Vec<u32>, skipped: u64) -> FeedPage<u32> {
        FeedPage {
            cursor,
            items,
            skipped,
        }
    }

    fn quick() -> FeedWait {
        FeedWait {
            wait: Duration::from_millis(200),
            max_items: 3,
        }
    }

    #[tokio::test]
    async fn a_new_reader_starts_from_now_and_then_gets_what_follows_in_order() {
        let feed = LiveFeed::new(100);
        feed.push([1, 2]);
        let start = feed.next(None, quick()).await;
        assert_eq!(start, answer(2, vec![], 0));
        feed.push([3, 4]);
        let page = feed.next(Some(start.cursor), quick()).await;
        assert_eq!(page, answer(4, vec![3, 4], 0));
    }

    #[tokio::test]
    async fn a_waiting_reader_wakes_on_a_push_and_takes_all_that_is_there() {
        let feed = Arc::new(LiveFeed::new(100));
        let reader = {
            let feed = feed.clone();
            tokio::spawn(async move { feed.next(Some(0), quick()).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        feed.push([1]);
        feed.push([2]);
        let page = reader.await.expect("reader");
        assert_eq!(page, answer(2, vec![1, 2], 0));
    }

    #[tokio::test]
    async fn nothing_within_the_wait_answers_empty_at_the_same_cursor() {
        let feed: LiveFeed<u32> = LiveFeed::new(100);
        let page = feed.next(Some(0), quick()).await;
        assert_eq!(page, answer(0, vec![], 0));
    }

    #[tokio::test]
    async fn answers_are_bounded_and_the_rest_follows_at_once() {
        let feed = LiveFeed::new(100);
        feed.push([1, 2, 3, 4, 5]);
        let first = feed.next(Some(0), quick()).await;
        assert_eq!(first.items, vec![1, 2, 3]);
        let started = tokio::time::Instant::now();
        let rest = feed.next(Some(first.cursor), quick()).await;
        assert_eq!(rest, answer(5, vec![4, 5], 0));
        assert!(
            started.elapsed() < Duration::from_millis(150),
            "no wait when items are there"
        );
    }

    #[tokio::test]
    async fn a_reader_behind_the_capacity_is_told_how_many_it_missed() {
        let feed = LiveFeed::new(2);
        feed.push([1, 2, 3, 4, 5]);
        let page = feed.next(Some(0), quick()).await;
        assert_eq!(page, answer(5, vec![4, 5], 3));
    }

    #[tokio::test]
    async fn acknowledged_items_are_dropped_and_a_cursor_past_the_end_reads_as_the_end() {
        let feed = LiveFeed::new(100);
        feed.push([1, 2, 3]);
        let _ = feed.next(Some(2), quick()).await;
        assert_eq!(
            feed.lock().items.len(),
            1,
            "items before the cursor are gone"
        );
        assert_eq!(feed.lock().first, 2);
        let started = tokio::time::Instant::now();
        let page = feed.next(Some(99), quick()).await;
        assert_eq!(page, answer(3, vec![], 0));
        assert!(
            started.elapsed() < Duration::from_millis(150),
            "answered at once"
        );
    }
}
