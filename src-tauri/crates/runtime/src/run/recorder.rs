//! Appends a run's events one fact at a time, keeps the committed list the
//! context is built from, and publishes each committed event.

use crate::live::{LiveBus, LiveEvent};
use crate::AppError;
use bearagent_kernel::{
    apply, Clock, EventEnvelope, EventPayload, EventSeq, NewEvent, RunId, RunProjection,
};
use bearagent_store::Store;
use std::sync::Arc;

/// Appends one event to `run_id` beside its loop (not through its
/// `Recorder`: the workspace watcher, a loop that gave up) and publishes
/// it. On a seq conflict it retries at the new end a few times, then
/// returns the last conflict.
pub(crate) fn append_beside(
    store: &Store,
    clock: &dyn Clock,
    live: &LiveBus,
    run_id: RunId,
    payload: EventPayload,
) -> Result<(), bearagent_store::StoreError> {
    append_all_beside(store, clock, live, run_id, vec![payload])
}

/// [`append_beside`] with a cause (an outcome names its intent); the
/// event's seq.
pub(crate) fn append_caused(
    store: &Store,
    clock: &dyn Clock,
    live: &LiveBus,
    run_id: RunId,
    cause: Option<EventSeq>,
    payload: EventPayload,
) -> Result<EventSeq, bearagent_store::StoreError> {
    let mut attempts = 0;
    loop {
        let next = store.next_seq(run_id)?;
        let event = NewEvent::new(clock.now(), cause, payload.clone());
        match store.append(run_id, next, vec![event]) {
            Ok(stamped) => {
                for e in stamped {
                    live.publish(LiveEvent::Committed(Arc::new(e)));
                }
                return Ok(next);
            }
            Err(bearagent_store::StoreError::Conflict { .. }) if attempts < 4 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

/// [`append_beside`] for several events in one transaction (a burst of
/// observed changes is one write, so it races the run's loop once).
pub(crate) fn append_all_beside(
    store: &Store,
    clock: &dyn Clock,
    live: &LiveBus,
    run_id: RunId,
    payloads: Vec<EventPayload>,
) -> Result<(), bearagent_store::StoreError> {
    let mut attempts = 0;
    loop {
        let next = store.next_seq(run_id)?;
        let now = clock.now();
        let events = payloads
            .iter()
            .map(|p| NewEvent::new(now, None, p.clone()))
            .collect();
        match store.append(run_id, next, events) {
            Ok(stamped) => {
                for e in stamped {
                    live.publish(LiveEvent::Committed(Arc::new(e)));
                }
                return Ok(());
            }
            Err(bearagent_store::StoreError::Conflict { .. }) if attempts < 4 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

pub struct Recorder {
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
    live: LiveBus,
    run_id: RunId,
    events: Vec<EventEnvelope>,
    state: Option<RunProjection>,
    /// A replay: events are matched against this record, never stored.
    tape: Option<Arc<crate::replay::Tape>>,
}

impl Recorder {
    pub fn new(store: Arc<Store>, clock: Arc<dyn Clock>, live: LiveBus, run_id: RunId) -> Self {
        Self {
            store,
            clock,
            live,
            run_id,
            events: Vec::new(),
            state: None,
            tape: None,
        }
    }

    /// A recorder that re-drives `run_id` against its record: each event
    /// the loop would append is matched with the recorded one (and taken
    /// as recorded), nothing is stored or published.
    pub(crate) fn replaying(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        run_id: RunId,
        tape: Arc<crate::replay::Tape>,
    ) -> Self {
        Self {
            tape: Some(tape),
            ..Self::new(store, clock, LiveBus::new(), run_id)
        }
    }

    /// A replaying recorder that goes on where the tape's matched events
    /// end: the recorder of a process that resumed the run.
    pub(crate) fn replaying_after(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        run_id: RunId,
        tape: &Arc<crate::replay::Tape>,
    ) -> Result<Self, AppError> {
        let events = tape.played().to_vec();
        let mut rec = Self::resume(store, clock, LiveBus::new(), run_id, events)?;
        rec.tape = Some(tape.clone());
        Ok(rec)
    }

    /// The record a replay plays back, if this is one.
    pub(crate) fn tape(&self) -> Option<&Arc<crate::replay::Tape>> {
        self.tape.as_ref()
    }

    /// In a replay, takes in the changes the watcher saw beside the loop
    /// that come next in the record (they were committed before whatever
    /// the loop does next).
    pub(crate) fn absorb_beside(&mut self) -> Result<(), AppError> {
        while self.tape.as_ref().is_some_and(|t| {
            matches!(
                t.ahead().first().map(|e| &e.payload),
                Some(EventPayload::ExternalChangeObserved { .. })
            )
        }) {
            self.copy_recorded()?;
        }
        Ok(())
    }

    /// A replay takes the next recorded event as it is (a fact the loop
    /// does not make again: a tool's effects, a hook's run, a file read).
    pub(crate) fn copy_recorded(&mut self) -> Result<Option<EventSeq>, AppError> {
        let Some(event) = self.tape.as_ref().and_then(|t| t.copy()) else {
            return Ok(None);
        };
        self.take_in(event).map(Some)
    }

    fn take_in(&mut self, envelope: EventEnvelope) -> Result<EventSeq, AppError> {
        self.state = Some(
            apply(self.state.as_ref(), &envelope).map_err(|e| AppError::Corrupt(e.to_string()))?,
        );
        let seq = envelope.seq;
        self.events.push(envelope);
        Ok(seq)
    }

    /// Resumes recording after the given committed events.
    pub fn resume(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        live: LiveBus,
        run_id: RunId,
        events: Vec<EventEnvelope>,
    ) -> Result<Self, AppError> {
        let state =
            bearagent_kernel::fold(&events).map_err(|e| AppError::Corrupt(e.to_string()))?;
        Ok(Self {
            store,
            clock,
            live,
            run_id,
            events,
            state,
            tape: None,
        })
    }

    pub fn run_id(&self) -> RunId {
        self.run_id
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn live(&self) -> &LiveBus {
        &self.live
    }

    pub fn events(&self) -> &[EventEnvelope] {
        &self.events
    }

    /// The committed event `seq` of this run, if there is one.
    pub fn event(&self, seq: EventSeq) -> Option<&EventEnvelope> {
        let i = self.events.partition_point(|e| e.seq < seq);
        self.events.get(i).filter(|e| e.seq == seq)
    }

    pub fn state(&self) -> Option<&RunProjection> {
        self.state.as_ref()
    }

    pub fn last_seq(&self) -> Option<EventSeq> {
        self.events.last().map(|e| e.seq)
    }

    /// Takes in events another writer appended (the workspace watcher).
    fn catch_up(&mut self) -> Result<(), AppError> {
        let after = self.last_seq().unwrap_or_default();
        for envelope in self
            .store
            .events_after(self.run_id, after, bearagent_store::MAX_PAGE)?
        {
            self.state = Some(
                apply(self.state.as_ref(), &envelope)
                    .map_err(|e| AppError::Corrupt(e.to_string()))?,
            );
            self.events.push(envelope);
        }
        Ok(())
    }

    /// Ends the run as cancelled by the user, after its last event.
    pub fn record_user_cancel(&mut self) -> Result<EventSeq, AppError> {
        self.record(
            self.last_seq(),
            EventPayload::RunCancelled {
                reason: Some("cancelled by the user".into()),
            },
        )
    }

    /// Commits one event caused by `cause` and returns its seq.
    pub fn record(
        &mut self,
        cause: Option<EventSeq>,
        payload: EventPayload,
    ) -> Result<EventSeq, AppError> {
        self.record_chain(cause, vec![payload])
    }

    /// Records events that follow one another with nothing done between
    /// them, in one transaction: the first caused by `cause`, each next by
    /// the one before. Returns the last one's seq.
    pub fn record_chain(
        &mut self,
        cause: Option<EventSeq>,
        payloads: Vec<EventPayload>,
    ) -> Result<EventSeq, AppError> {
        if let Some(tape) = self.tape.clone() {
            return self.replay_chain(&tape, cause, payloads);
        }
        let mut attempts = 0;
        let stamped = loop {
            let first = self.last_seq().map_or(EventSeq::FIRST, EventSeq::next);
            let now = self.clock.now();
            let mut seq = first;
            let mut previous = cause;
            let events = payloads
                .iter()
                .map(|payload| {
                    let event = NewEvent::new(now, previous, payload.clone());
                    previous = Some(seq);
                    seq = seq.next();
                    event
                })
                .collect();
            match self.store.append(self.run_id, first, events) {
                Ok(stamped) => break stamped,
                // Only writers beside the loop append to a live run, each
                // burst once; catching up and trying again always converges.
                Err(bearagent_store::StoreError::Conflict { .. }) if attempts < 20 => {
                    attempts += 1;
                    self.catch_up()?;
                }
                Err(e) => return Err(e.into()),
            }
        };
        let mut last = None;
        for envelope in stamped {
            self.state = Some(
                apply(self.state.as_ref(), &envelope)
                    .map_err(|e| AppError::Corrupt(e.to_string()))?,
            );
            last = Some(envelope.seq);
            self.live
                .publish(LiveEvent::Committed(Arc::new(envelope.clone())));
            self.events.push(envelope);
        }
        last.ok_or_else(|| AppError::Corrupt("the store stamped no event".into()))
    }

    /// `record_chain` in a replay: each event matched against the record
    /// (changes the watcher saw beside the loop are taken in first).
    fn replay_chain(
        &mut self,
        tape: &crate::replay::Tape,
        cause: Option<EventSeq>,
        payloads: Vec<EventPayload>,
    ) -> Result<EventSeq, AppError> {
        let mut previous = cause;
        let mut last = None;
        for payload in payloads {
            self.absorb_beside()?;
            let seq = self.last_seq().map_or(EventSeq::FIRST, EventSeq::next);
            let recorded = tape
                .take(seq, previous, &payload)
                .map_err(|d| AppError::Conflict(d.to_string()))?;
            previous = Some(self.take_in(recorded)?);
            last = previous;
        }
        last.ok_or_else(|| AppError::Corrupt("nothing to record".into()))
    }
}
