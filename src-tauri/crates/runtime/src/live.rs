//! Live updates for front ends: committed events plus text deltas. Only the
//! committed events are facts; a subscriber that falls behind pages the rest
//! from the store.

use bearagent_kernel::{EventEnvelope, EventSeq, RunId};
use std::sync::Arc;
use tokio::sync::broadcast;

#[derive(Debug, Clone, PartialEq)]
pub enum LiveEvent {
    /// Shared: every subscriber gets the same committed event.
    Committed(Arc<EventEnvelope>),
    /// Model text as it streams, for the model call whose
    /// `ModelCallStarted` event has seq `model_call`.
    TextDelta {
        run_id: RunId,
        model_call: EventSeq,
        text: String,
    },
    /// The model call's attempt failed mid-stream and is retried: the text
    /// streamed so far for `model_call` is void.
    TextDiscarded { run_id: RunId, model_call: EventSeq },
    /// The run's loop stopped because its events could not be stored (the
    /// store failed or refused an append). The run may still show as live
    /// in the store; this process no longer executes it.
    RunAborted { run_id: RunId, message: String },
    /// Output of a running command, as it arrives (raw, with colour
    /// codes). Transient: the stored output is on `CommandFinished`.
    CommandOutput {
        run_id: RunId,
        call_id: bearagent_kernel::CallId,
        text: String,
    },
}

impl LiveEvent {
    pub fn run_id(&self) -> RunId {
        match self {
            LiveEvent::Committed(e) => e.run_id,
            LiveEvent::TextDelta { run_id, .. }
            | LiveEvent::TextDiscarded { run_id, .. }
            | LiveEvent::RunAborted { run_id, .. }
            | LiveEvent::CommandOutput { run_id, .. } => *run_id,
        }
    }
}

#[derive(Clone)]
pub struct LiveBus {
    sender: broadcast::Sender<LiveEvent>,
}

impl LiveBus {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(4096);
        Self { sender }
    }

    pub fn publish(&self, event: LiveEvent) {
        // No subscriber is fine: events are in the store.
        let _ = self.sender.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.sender.subscribe()
    }
}

impl Default for LiveBus {
    fn default() -> Self {
        Self::new()
    }
}

/// What a front end receives at once: the live events that arrived within
/// one short window, in order. Each delivery to a web page costs a script
/// evaluation that WebKit keeps memory for (measured ≈ 3 KB each, whatever
/// the payload), so a fast run is pushed a few batches a step rather than
/// an evaluation per event.
#[derive(Debug, Default, PartialEq)]
pub struct LiveBatch {
    pub events: Vec<LiveEvent>,
    /// Events this subscriber missed because it fell behind; the front end
    /// notices the gap in seqs and pages the store.
    pub skipped: u64,
}

/// How long a batch stays open after its first event, and how many events
/// it holds at most.
#[derive(Debug, Clone, Copy)]
pub struct BatchWindow {
    pub wait: std::time::Duration,
    pub max_events: usize,
}

impl Default for BatchWindow {
    /// One frame at 60 Hz: streamed text still reads as smooth.
    fn default() -> Self {
        Self {
            wait: std::time::Duration::from_millis(16),
            max_events: 256,
        }
    }
}

/// Waits for the next live event, then gathers what else arrives within the
/// window. `None` once the bus is closed and nothing is left to deliver.
pub async fn next_batch(
    rx: &mut broadcast::Receiver<LiveEvent>,
    window: BatchWindow,
) -> Option<LiveBatch> {
    let mut batch = LiveBatch::default();
    // The first event opens the window; a lag before it still counts.
    loop {
        match rx.recv().await {
            Ok(event) => {
                batch.events.push(event);
                break;
            }
            Err(broadcast::error::RecvError::Lagged(n)) => batch.skipped += n,
            Err(broadcast::error::RecvError::Closed) => {
                return (batch.skipped > 0).then_some(batch);
            }
        }
    }
    let deadline = tokio::time::Instant::now() + window.wait;
    while batch.events.len() < window.max_events {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Ok(event)) => batch.events.push(event),
            Ok(Err(broadcast::error::RecvError::Lagged(n))) => batch.skipped += n,
            Ok(Err(broadcast::error::RecvError::Closed)) | Err(_) => break,
        }
    }
    Some(batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn text(n: u64) -> LiveEvent {
        LiveEvent::TextDelta {
            run_id: RunId::new(),
            model_call: EventSeq(n),
            text: format!("delta {n}"),
        }
    }

    fn window(ms: u64, max_events: usize) -> BatchWindow {
        BatchWindow {
            wait: Duration::from_millis(ms),
            max_events,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn given_events_within_the_window_when_batched_then_one_batch_in_order() {
        let bus = LiveBus::new();
        let mut rx = bus.subscribe();
        for n in 1..=3 {
            bus.publish(text(n));
        }
        let later = bus.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            later.publish(text(4));
            tokio::time::sleep(Duration::from_millis(20)).await;
            later.publish(text(5));
        });
        let first = next_batch(&mut rx, window(16, 100)).await.expect("a batch");
        let seqs: Vec<u64> = first.events.iter().map(model_call).collect();
        assert_eq!(
            seqs,
            [1, 2, 3, 4],
            "arrived within 16 ms of the first, in order"
        );
        let second = next_batch(&mut rx, window(16, 100)).await.expect("a batch");
        assert_eq!(
            second.events.iter().map(model_call).collect::<Vec<_>>(),
            [5]
        );
    }

    fn model_call(event: &LiveEvent) -> u64 {
        match event {
            LiveEvent::TextDelta { model_call, .. } => model_call.get(),
            other => panic!("not a text delta: {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn given_more_events_than_a_batch_holds_when_batched_then_split_without_loss() {
        let bus = LiveBus::new();
        let mut rx = bus.subscribe();
        for n in 1..=5 {
            bus.publish(text(n));
        }
        let a = next_batch(&mut rx, window(16, 2)).await.expect("a batch");
        let b = next_batch(&mut rx, window(16, 2)).await.expect("a batch");
        let c = next_batch(&mut rx, window(16, 2)).await.expect("a batch");
        let all: Vec<u64> = [a, b, c]
            .iter()
            .flat_map(|b| b.events.iter().map(model_call))
            .collect();
        assert_eq!(all, [1, 2, 3, 4, 5]);
    }

    #[tokio::test(start_paused = true)]
    async fn given_a_closed_bus_when_batched_then_the_rest_is_delivered_then_none() {
        let bus = LiveBus::new();
        let mut rx = bus.subscribe();
        bus.publish(text(1));
        drop(bus);
        let last = next_batch(&mut rx, window(16, 100))
            .await
            .expect("what was left");
        assert_eq!(last.events.iter().map(model_call).collect::<Vec<_>>(), [1]);
        assert_eq!(next_batch(&mut rx, window(16, 100)).await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn given_a_subscriber_that_fell_behind_when_batched_then_the_skip_is_counted() {
        let (sender, mut rx) = broadcast::channel(2);
        for n in 1..=5 {
            sender.send(text(n)).expect("a subscriber");
        }
        let batch = next_batch(&mut rx, window(16, 100)).await.expect("a batch");
        assert_eq!(batch.skipped, 3);
        assert_eq!(
            batch.events.iter().map(model_call).collect::<Vec<_>>(),
            [4, 5]
        );
    }
}
