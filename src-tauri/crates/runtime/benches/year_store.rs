//! A store that has lived a year: 2 000 runs and about 1 M events in ten
//! workspaces, made through the application API (scripted models reading,
//! listing, searching, writing and editing files; a few runs failing; one
//! long run of ≈ 20 000 events), then what a user waits for on it, each
//! beside the same on an empty data folder where that applies:
//!
//! - opening the data folder (the app's and the CLI's start);
//! - the runs list's first page (`runs`, 50 newest) and the CLI's `runs`;
//! - the worktrees list, which the app's start asks for too;
//! - opening the largest run: its projection and first 500 events;
//! - a search over run goals (a word some goals have, and one none has);
//! - the database size per event.
//!
//! The store is made once into `target/year-store` (about 5 minutes on
//! tmpfs, then copied) and reused; `BEARAGENT_YEAR_STORE=DIR` names
//! another folder, removing it makes it again.
//!
//! Run: `cargo bench -p bearagent-runtime --bench year_store`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use bearagent_runtime::{Application, RunFilter, SystemClock};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{median, ms};

const RUNS: usize = 2_000;
const WORKSPACES: usize = 10;
/// Tool-call steps of an ordinary run: ≈ 6 events each, ≈ 480 a run.
const STEPS: usize = 80;
/// The long run: ≈ 20 000 events.
const LONG_STEPS: usize = 3_300;
const TOPICS: [&str; 10] = [
    "parser",
    "billing",
    "login form",
    "flaky test",
    "cache layer",
    "CLI flags",
    "migration",
    "docs",
    "retry logic",
    "logging",
];

fn main() {
    let dir = std::env::var_os("BEARAGENT_YEAR_STORE").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/year-store"),
        PathBuf::from,
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if !dir.join("bearagent.db").exists() {
        make_year_store(&rt, &dir);
    }
    let empty = tempfile::tempdir().unwrap();
    Application::open(empty.path(), Arc::new(SystemClock)).unwrap();
    measure(&dir, empty.path());
}

/// Every run through `start_run` with a scripted model, on tmpfs (the
/// commits' fsyncs are not what is measured), then the closed database
/// copied to `dir`.
fn make_year_store(rt: &tokio::runtime::Runtime, dir: &Path) {
    let scratch = tempfile::Builder::new()
        .prefix("bearagent-year-")
        .tempdir_in(if Path::new("/dev/shm").is_dir() {
            "/dev/shm"
        } else {
            "/tmp"
        })
        .unwrap();
    let home = scratch.path().join("home");
    let workspaces: Vec<PathBuf> = (0..WORKSPACES)
        .map(|i| {
            let ws = scratch.path().join(format!("project-{i}"));
            std::fs::create_dir_all(ws.join("src")).unwrap();
            std::fs::write(
                ws.join("src/lib.rs"),
                "pub fn total(x: u32) -> u32 {\n    x * 2\n}\n".repeat(20),
            )
            .unwrap();
            std::fs::write(
                ws.join("README.md"),
                "# project\nNotes about the code.\n".repeat(40),
            )
            .unwrap();
            ws
        })
        .collect();
    let started = Instant::now();
    let app = Application::open(&home, Arc::new(SystemClock)).unwrap();
    for i in 0..RUNS {
        let steps = if i == RUNS / 2 { LONG_STEPS } else { STEPS };
        let ws = &workspaces[i % WORKSPACES];
        let goal = format!(
            "fix the {} issue #{i}: read the code, change it and say what changed",
            TOPICS[i % TOPICS.len()]
        );
        support::run_script(rt, &app, ws, &goal, script(i, steps));
        if i % 200 == 199 {
            eprintln!(
                "made {} runs in {:.0} s",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    drop(app);
    std::fs::create_dir_all(dir).unwrap();
    for name in ["bearagent.db", "bearagent.db-wal", "bearagent.db-shm"] {
        let from = home.join(name);
        if from.exists() {
            std::fs::copy(&from, dir.join(name)).unwrap();
        }
    }
    eprintln!(
        "made the year-old store in {:.0} s",
        started.elapsed().as_secs_f64()
    );
}

/// A run's steps: reads, listings and searches, with a write and an edit
/// of its own file now and then.
fn script(run: usize, steps: usize) -> Vec<Value> {
    let call = |tool: &str, args: Value| json!({"tool_call": {"tool_name": tool, "arguments": args}, "usage": {"input": 1200, "output": 80}});
    let own = format!("notes/run-{run}.md");
    (0..steps)
        .map(|s| match s % 8 {
            0 => call("list_dir", json!({"path": "."})),
            1 | 4 => call("read_file", json!({"path": "src/lib.rs"})),
            2 => call(
                "search_text",
                json!({"pattern": "fn total", "literal": true}),
            ),
            3 => call("read_file", json!({"path": "README.md", "end_line": 10})),
            5 if s == 5 => call(
                "write_file",
                json!({"path": own, "content": format!("run {run}\n")}),
            ),
            5 => call("read_file", json!({"path": own})),
            6 => {
                // Toggles a full stop, so each edit changes the file.
                let (plain, stopped) = (format!("run {run}\n"), format!("run {run}.\n"));
                let (old, new) = if s % 16 == 6 {
                    (plain, stopped)
                } else {
                    (stopped, plain)
                };
                call(
                    "edit_file",
                    json!({"path": own, "old_string": old, "new_string": new}),
                )
            }
            _ => call("list_dir", json!({"path": "src"})),
        })
        .collect()
}

/// The median of five timings of `f`.
fn timed(mut f: impl FnMut()) -> Duration {
    median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn measure(year: &Path, empty: &Path) {
    let open_year = timed(|| drop(Application::open(year, Arc::new(SystemClock)).unwrap()));
    let open_empty = timed(|| drop(Application::open(empty, Arc::new(SystemClock)).unwrap()));
    let app = Application::open(year, Arc::new(SystemClock)).unwrap();
    let fresh = Application::open(empty, Arc::new(SystemClock)).unwrap();
    let all = app.runs(None, Some(10_000)).unwrap();
    // Each run's event count, read once.
    let sizes: Vec<_> = all
        .iter()
        .map(|r| (r.run_id, app.get_run(r.run_id).unwrap().last_seq.get()))
        .collect();
    let events: u64 = sizes.iter().map(|(_, n)| n).sum();
    let (largest, largest_events) = *sizes.iter().max_by_key(|(_, n)| *n).unwrap();
    let page = |a: &Application| drop(a.runs(None, Some(50)).unwrap());
    let first_page = timed(|| page(&app));
    let first_page_empty = timed(|| page(&fresh));
    let open_largest = timed(|| {
        app.get_run(largest).unwrap();
        app.list_events(largest, bearagent_kernel::EventSeq(0), 500)
            .unwrap();
    });
    let search = |text: &str| {
        timed(|| {
            app.search_runs(RunFilter {
                text: Some(text.into()),
                limit: Some(50),
                ..RunFilter::default()
            })
            .unwrap();
        })
    };
    let (hit, miss) = (search("billing"), search("no goal says this"));
    let db_bytes: u64 = ["bearagent.db", "bearagent.db-wal"]
        .iter()
        .filter_map(|n| std::fs::metadata(year.join(n)).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "year-old store: {} runs, {events} events, largest run {largest_events} events; database {:.0} MB, {:.0} bytes per event",
        all.len(),
        db_bytes as f64 / 1e6,
        db_bytes as f64 / events as f64
    );
    println!(
        "open the data folder      {:>7.1} ms   empty {:>6.1} ms   ratio {:.2}x (goal <= 1.20x)",
        ms(open_year),
        ms(open_empty),
        ms(open_year) / ms(open_empty)
    );
    println!(
        "runs list, first 50       {:>7.1} ms   empty {:>6.1} ms   (goal < 100 ms)",
        ms(first_page),
        ms(first_page_empty)
    );
    cli_runs(year, empty);
    worktrees_list(&app, &fresh);
    println!(
        "open the largest run      {:>7.1} ms   (projection + first 500 events; goal < 300 ms)",
        ms(open_largest)
    );
    println!(
        "search goals              {:>7.1} ms a word some goals have, {:.1} ms one none has (goal < 50 ms)",
        ms(hit),
        ms(miss)
    );
}

/// The worktrees list (the app's start asks for it beside the runs list):
/// none of the year's runs has a worktree, so it must not cost the year.
fn worktrees_list(year: &Application, empty: &Application) {
    let list = |a: &Application| drop(a.worktrees().unwrap());
    let (year_t, empty_t) = (timed(|| list(year)), timed(|| list(empty)));
    println!(
        "worktrees list            {:>7.2} ms   empty {:>6.2} ms   (asked for at every start)",
        ms(year_t),
        ms(empty_t)
    );
}

/// `bearagent runs` as a user types it, with the release CLI if it is
/// built: process start, opening the folder, the newest 50 runs printed.
fn cli_runs(year: &Path, empty: &Path) {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/release/bearagent");
    if !bin.exists() {
        println!("bearagent runs            (skipped: build it with cargo build --release -p bearagent-cli)");
        return;
    }
    let run = |home: &Path| {
        timed(|| {
            let out = std::process::Command::new(&bin)
                .args(["runs", "--limit", "50"])
                .env("BEARAGENT_HOME", home)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        })
    };
    let (year_t, empty_t) = (run(year), run(empty));
    println!(
        "bearagent runs --limit 50 {:>7.1} ms   empty {:>6.1} ms   ratio {:.2}x (goal < 100 ms)",
        ms(year_t),
        ms(empty_t),
        ms(year_t) / ms(empty_t)
    );
}
