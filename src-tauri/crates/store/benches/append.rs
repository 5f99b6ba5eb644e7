//! Store append benchmark: 10 000 events appended one per transaction and in
//! batches of 100, against a raw rusqlite insert loop of the same rows with
//! the same PRAGMAs, measured in the same run. Prints both and the ratio.
//!
//! Run: `cargo bench -p bearagent-store --bench append`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_kernel::testkit::valid_run_from_choices;
use bearagent_kernel::{EventEnvelope, EventSeq, NewEvent, RunId, WorkspaceId};
use bearagent_store::Store;
use rusqlite::{params, Connection};
use std::time::{Duration, Instant};

const EVENTS: usize = 10_000;
const ROUNDS: usize = 3;

fn events() -> Vec<EventEnvelope> {
    // Tool turns, approvals and invalid outputs, never a terminal event.
    let choices: Vec<u8> = [0u8, 1, 2, 3, 8, 0]
        .iter()
        .copied()
        .cycle()
        .take(EVENTS / 4)
        .collect();
    let mut events = valid_run_from_choices(RunId::new(), WorkspaceId::new(), &choices);
    events.truncate(EVENTS);
    assert_eq!(events.len(), EVENTS, "generator produced too few events");
    events
}

fn store_append(events: &[EventEnvelope], batch: usize) -> Duration {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_in(dir.path()).expect("open store");
    let run = RunId::new();
    let start = Instant::now();
    let mut next = EventSeq(1);
    for chunk in events.chunks(batch) {
        let news = chunk
            .iter()
            .map(|e| NewEvent::new(e.at, e.cause, e.payload.clone()))
            .collect();
        let stamped = store.append(run, next, news).expect("append");
        next = stamped.last().expect("non-empty").seq.next();
    }
    start.elapsed()
}

fn raw_insert(events: &[EventEnvelope], batch: usize) -> Duration {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut conn = Connection::open(dir.path().join("raw.db")).expect("open raw");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
         CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL,
           type TEXT NOT NULL, at TEXT NOT NULL, cause INTEGER, schema_version INTEGER NOT NULL,
           payload TEXT NOT NULL, UNIQUE (run_id, seq));",
    )
    .expect("schema");
    let run = RunId::new().to_string();
    let start = Instant::now();
    for chunk in events.chunks(batch) {
        let tx = conn.transaction().expect("tx");
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .expect("prepare");
            for e in chunk {
                // The raw loop serialises the same payload the store writes.
                let payload = serde_json::to_string(&e.payload).expect("json");
                stmt.execute(params![
                    run,
                    e.seq.get() as i64,
                    e.payload.type_name(),
                    e.at.to_rfc3339(),
                    e.cause.map(|c| c.get() as i64),
                    e.schema_version,
                    payload
                ])
                .expect("insert");
            }
        }
        tx.commit().expect("commit");
    }
    start.elapsed()
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let events = events();
    println!(
        "store append benchmark: {EVENTS} events, median of {ROUNDS} rounds, synchronous=FULL, WAL"
    );
    let mut worst: f64 = 0.0;
    for batch in [1usize, 100] {
        let mut ours = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..ROUNDS {
            // Interleave so machine noise hits both sides alike.
            ours.push(store_append(&events, batch));
            raw.push(raw_insert(&events, batch));
        }
        let (ours, raw) = (median(ours), median(raw));
        let ratio = ours.as_secs_f64() / raw.as_secs_f64();
        worst = worst.max(ratio);
        println!(
            "batch {batch:>3}: store {:>8.1} ms ({:>6.1} µs/event)   raw {:>8.1} ms ({:>6.1} µs/event)   ratio {ratio:.2}x",
            ours.as_secs_f64() * 1e3,
            ours.as_secs_f64() * 1e6 / EVENTS as f64,
            raw.as_secs_f64() * 1e3,
            raw.as_secs_f64() * 1e6 / EVENTS as f64,
        );
    }
    println!("worst ratio {worst:.2}x (goal <= 1.50x)");
}
