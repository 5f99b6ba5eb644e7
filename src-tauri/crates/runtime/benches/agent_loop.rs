//! Agent-loop benchmark: a 500-step scripted run (read_file every step,
//! zero-latency provider, every event durably committed) against a raw
//! SQLite insert of the same rows, grouped into transactions as the store
//! committed them (so the ratio is BearAgent's work per step, not a
//! difference in fsync count), with the same PRAGMAs, in the same run.
//! Prints the per-step figures and the ratio.
//!
//! Run: `cargo bench -p bearagent-runtime --bench agent_loop`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use bearagent_kernel::{EventEnvelope, EventSeq};
use bearagent_runtime::{Application, SystemClock};
use rusqlite::{params, Connection};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const STEPS: usize = 500;
const LONG_STEPS: usize = 2_000;
/// Rounds of run, baseline and store; the ratio printed is their median.
const ROUNDS: usize = 7;

/// CPU time this process has used (all threads, user and system), from
/// /proc/self/stat in clock ticks of 10 ms.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// A run's time, its events, and the appends (transactions) the store
/// committed for it.
fn scripted_run(
    rt: &tokio::runtime::Runtime,
    steps_n: usize,
) -> (Duration, Vec<EventEnvelope>, u64) {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.txt"), "a line of text\n".repeat(64)).unwrap();
    let steps: Vec<serde_json::Value> = (0..steps_n)
        .map(|_| json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.txt"}}, "usage": {"input": 100, "output": 10}}))
        .collect();
    let app = Application::open(home.path(), Arc::new(SystemClock)).unwrap();
    let before = app.store().appends_committed().unwrap();
    let start = Instant::now();
    let run_id = support::run_script(rt, &app, ws.path(), "read a.txt many times", steps);
    let elapsed = start.elapsed();
    let appends = app.store().appends_committed().unwrap() - before;
    let mut events = Vec::new();
    let mut after = EventSeq(0);
    loop {
        let page = app.list_events(run_id, after, 5000).unwrap();
        let Some(last) = page.last() else { break };
        after = last.seq;
        events.extend(page);
    }
    (elapsed, events, appends)
}

/// The events as the loop commits them: a model call's request and start
/// in one transaction, and a tool call's request and start when the call
/// starts at once (its start caused by its request); every other event in
/// its own.
fn commit_groups(events: &[EventEnvelope]) -> Vec<&[EventEnvelope]> {
    use bearagent_kernel::EventPayload as P;
    let mut groups: Vec<&[EventEnvelope]> = Vec::new();
    let mut start = 0;
    for i in 1..=events.len() {
        let joins = events.get(i).is_some_and(|e| {
            let prev = &events[i - 1];
            matches!(
                (&prev.payload, &e.payload),
                (P::ModelCallRequested { .. }, P::ModelCallStarted { .. })
            ) || (matches!(
                (&prev.payload, &e.payload),
                (P::ToolCallRequested { .. }, P::ToolCallStarted { .. })
            ) && e.cause == Some(prev.seq))
        });
        if !joins {
            groups.push(&events[start..i]);
            start = i;
        }
    }
    groups
}

fn raw_inserts(groups: &[&[EventEnvelope]]) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = Connection::open(dir.path().join("raw.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
         CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL,
           type TEXT NOT NULL, at TEXT NOT NULL, cause INTEGER, schema_version INTEGER NOT NULL,
           payload TEXT NOT NULL, UNIQUE (run_id, seq));",
    )
    .unwrap();
    let start = Instant::now();
    for group in groups {
        let tx = conn.transaction().unwrap();
        for e in *group {
            let payload = serde_json::to_string(&e.payload).unwrap();
            tx.prepare_cached(
                "INSERT INTO events (run_id, seq, type, at, cause, schema_version, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .unwrap()
            .execute(params![
                e.run_id.to_string(),
                e.seq.get() as i64,
                e.payload.type_name(),
                e.at.to_rfc3339(),
                e.cause.map(|c| c.get() as i64),
                e.schema_version,
                payload
            ])
            .unwrap();
        }
        tx.commit().unwrap();
    }
    start.elapsed()
}

/// The same rows through the event store alone (reducer, projection row,
/// owner check), grouped as the loop committed them: what recording costs
/// without the loop's own work (context, model stream, tool execution).
fn store_appends(groups: &[&[EventEnvelope]]) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let store = bearagent_store::Store::open_in(dir.path()).unwrap();
    let start = Instant::now();
    for group in groups {
        let news = group
            .iter()
            .map(|e| bearagent_kernel::NewEvent::new(e.at, e.cause, e.payload.clone()))
            .collect();
        store.append(group[0].run_id, group[0].seq, news).unwrap();
    }
    start.elapsed()
}

/// Where a step's wall time goes: the mean gap from each event's stamp to
/// the next one's, by the pair of kinds (a gap holds the earlier event's
/// commit and the work before the next is stamped).
fn gaps_by_kind(events: &[EventEnvelope]) -> String {
    let mut sums: std::collections::BTreeMap<(&str, &str), (f64, usize)> = Default::default();
    for pair in events.windows(2) {
        let micros = (pair[1].at.as_datetime() - pair[0].at.as_datetime()).as_seconds_f64() * 1e6;
        let slot = sums
            .entry((pair[0].payload.type_name(), pair[1].payload.type_name()))
            .or_default();
        *slot = (slot.0 + micros, slot.1 + 1);
    }
    sums.into_iter()
        .filter(|(_, (_, n))| *n >= STEPS / 2)
        .map(|((a, b), (sum, n))| format!("  {a} -> {b}: {:.0} us", sum / n as f64))
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut ours, mut raw, mut store) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ratios, mut store_ratios) = (Vec::new(), Vec::new());
    let (mut loop_cpu, mut raw_cpu, mut store_cpu) = (Vec::new(), Vec::new(), Vec::new());
    let (mut event_count, mut transactions) = (0, 0);
    let mut gaps = String::new();
    for _ in 0..ROUNDS {
        let cpu = cpu_time();
        let (t, events, appends) = scripted_run(&rt, STEPS);
        loop_cpu.push(cpu_time() - cpu);
        let groups = commit_groups(&events);
        // The baseline commits exactly as often as the store did.
        assert_eq!(
            groups.len() as u64,
            appends,
            "the rows' grouping does not match the store's commits"
        );
        (event_count, transactions) = (events.len(), groups.len());
        gaps = gaps_by_kind(&events);
        // Measured right after the run: fsync latency on a shared machine
        // drifts over seconds, so each round's ratio compares neighbours.
        let cpu = cpu_time();
        let r = raw_inserts(&groups);
        raw_cpu.push(cpu_time() - cpu);
        let cpu = cpu_time();
        let s = store_appends(&groups);
        store_cpu.push(cpu_time() - cpu);
        ratios.push(t.as_secs_f64() / r.as_secs_f64());
        store_ratios.push(s.as_secs_f64() / r.as_secs_f64());
        ours.push(t);
        raw.push(r);
        store.push(s);
    }
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let per_step = |d: &[Duration]| support::median(d.to_vec()).as_secs_f64() * 1e3 / STEPS as f64;
    println!("agent loop benchmark: {STEPS} steps (read_file each), {event_count} events in {transactions} transactions (the store's commits, the baseline's too), {ROUNDS} rounds, WAL + synchronous=FULL");
    println!(
        "loop {:.3} ms/step   raw inserts of the same rows {:.3} ms/step (medians)   ratio {:.2}x, median of the rounds' ratios (goal <= 1.20x); each round: {}",
        per_step(&ours),
        per_step(&raw),
        median(ratios.clone()),
        ratios.iter().map(|r| format!("{r:.2}x")).collect::<Vec<_>>().join(" "),
    );
    println!(
        "CPU time (all threads, user + system): loop {:.3} ms/step, raw inserts {:.3} ms/step, the store alone {:.3} ms/step (medians)",
        per_step(&loop_cpu),
        per_step(&raw_cpu),
        per_step(&store_cpu),
    );
    println!(
        "the event store alone, the same rows in the same transactions (reducer, owner check, a snapshot row every {} events or on a status change) {:.3} ms/step, {:.2}x raw",
        bearagent_store::SNAPSHOT_EVERY,
        per_step(&store),
        median(store_ratios),
    );
    println!("where a step's time goes (last round, mean gap between event stamps):\n{gaps}");
    // A long run: does a step cost more at step 2 000 than at the start?
    let (_, events, _) = scripted_run(&rt, LONG_STEPS);
    let starts: Vec<_> = events
        .iter()
        .filter(|e| {
            matches!(
                e.payload,
                bearagent_kernel::EventPayload::ModelCallRequested { .. }
            )
        })
        .map(|e| e.at)
        .collect();
    let ms_per_step = |from: usize| {
        let (a, b) = (starts[from], starts[from + 100]);
        (b.unix_millis() - a.unix_millis()) as f64 / 100.0
    };
    println!(
        "a {LONG_STEPS}-step run: {:.3} ms/step over steps 1-100, {:.3} ms/step over steps {}-{}",
        ms_per_step(0),
        ms_per_step(LONG_STEPS - 100),
        LONG_STEPS - 100,
        LONG_STEPS
    );
}
