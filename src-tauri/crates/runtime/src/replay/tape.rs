//! A run's record played back: the recorded events in order, how far the
//! re-driven loop has matched them, and where it first did something
//! else. Shared by the recorder, the clock and the provider of a replay.

use super::compare::{compare, Divergence, Redacted};
use bearagent_kernel::{Clock, EventEnvelope, EventPayload, EventSeq, Timestamp};
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

pub struct Tape {
    recorded: Vec<EventEnvelope>,
    cursor: Mutex<Cursor>,
    /// The re-driven loop's cancellation: fired where the record says the
    /// user cancelled.
    pub(crate) cancel: CancellationToken,
    /// The scratch workspace calls are prepared against; the recorded
    /// changes the replay copies are made on it.
    stage: Option<super::stage::Stage>,
    /// Where the record holds values a bundle redacted.
    redacted: Redacted,
}

#[derive(Default)]
struct Cursor {
    next: usize,
    divergence: Option<Divergence>,
    /// Differences taken as the bundle's redaction.
    excused: usize,
}

impl Tape {
    pub fn new(recorded: Vec<EventEnvelope>, cancel: CancellationToken) -> Self {
        let first_marked = recorded
            .iter()
            .find(|e| {
                serde_json::to_string(&e.payload)
                    .is_ok_and(|s| s.contains(crate::bundle::redact::MARKER_PREFIX))
            })
            .map(|e| e.seq);
        Self {
            recorded,
            cursor: Mutex::default(),
            cancel,
            stage: None,
            redacted: Redacted { first_marked },
        }
    }

    /// Differences the replay took as a bundle's redaction, not as
    /// divergences.
    pub fn excused(&self) -> usize {
        self.with(|c| c.excused)
    }

    /// The tape with the scratch workspace its calls are prepared against.
    pub fn staged(mut self, stage: super::stage::Stage) -> Self {
        self.stage = Some(stage);
        self
    }

    pub fn stage(&self) -> Option<&super::stage::Stage> {
        self.stage.as_ref()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Cursor) -> T) -> T {
        match self.cursor.lock() {
            Ok(mut c) => f(&mut c),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// The recorded events not matched yet.
    pub fn ahead(&self) -> &[EventEnvelope] {
        let next = self.with(|c| c.next);
        self.recorded.get(next..).unwrap_or(&[])
    }

    /// The recorded events matched so far.
    pub fn played(&self) -> &[EventEnvelope] {
        let next = self.with(|c| c.next);
        self.recorded.get(..next).unwrap_or(&[])
    }

    /// The last event matched.
    pub fn behind(&self) -> Option<&EventEnvelope> {
        let next = self.with(|c| c.next);
        next.checked_sub(1).and_then(|i| self.recorded.get(i))
    }

    pub fn matched(&self) -> usize {
        self.with(|c| c.next)
    }

    pub fn divergence(&self) -> Option<Divergence> {
        self.with(|c| c.divergence.clone())
    }

    /// Matches the loop's next event against the record: on success the
    /// recorded envelope (with its recorded time), else the divergence.
    pub fn take(
        &self,
        seq: EventSeq,
        cause: Option<EventSeq>,
        payload: &EventPayload,
    ) -> Result<EventEnvelope, Divergence> {
        let expected = self.ahead().first().cloned();
        let outcome = compare(seq, expected.as_ref(), cause, payload, self.redacted);
        self.with(|c| match &outcome {
            Ok(excused) => {
                c.next += 1;
                c.excused += excused;
            }
            Err(d) => {
                if c.divergence.is_none() {
                    c.divergence = Some(d.clone());
                }
            }
        });
        outcome.map(|_| expected.unwrap_or_else(|| unreachable_envelope(seq)))
    }

    /// Takes the next recorded event as it is: a fact the loop does not
    /// produce here (a tool's effects, a hook's run, a file read).
    pub fn copy(&self) -> Option<EventEnvelope> {
        let event = self.ahead().first().cloned()?;
        self.with(|c| c.next += 1);
        if let Some(stage) = &self.stage {
            stage.apply(&event.payload);
        }
        Some(event)
    }

    /// Records a divergence found outside `take` (the loop ended early).
    pub fn diverge(&self, d: Divergence) {
        self.with(|c| {
            if c.divergence.is_none() {
                c.divergence = Some(d);
            }
        });
    }
}

/// `compare` returns Ok only with an expected event; kept total anyway.
fn unreachable_envelope(seq: EventSeq) -> EventEnvelope {
    bearagent_kernel::NewEvent::new(
        Timestamp::from_datetime(time::OffsetDateTime::UNIX_EPOCH),
        None,
        EventPayload::RunStarted,
    )
    .into_envelope(bearagent_kernel::RunId::new(), seq)
}

/// The replay's clock: the time of the next recorded event, so decisions
/// that read the time (the wall-time budget) see what the run saw.
pub struct TapeClock(pub std::sync::Arc<Tape>);

impl Clock for TapeClock {
    fn now(&self) -> Timestamp {
        match (self.0.ahead().first(), self.0.behind()) {
            (Some(next), _) => next.at,
            (None, Some(last)) => last.at,
            (None, None) => Timestamp::from_datetime(time::OffsetDateTime::UNIX_EPOCH),
        }
    }
}
