//! SIGKILL in the middle of a rewind: a rewind of 200 files is killed at a
//! random moment; every file is then either as before the rewind or as
//! after it (never torn), and the next rewind settles the interrupted one
//! from the disk, like a tool write, before it goes on. At least a third
//! of the kills must land mid-rewind (some files done, some not), or the
//! test proves nothing and fails.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{env, Env};

const FILES: usize = 200;

fn before(i: usize) -> String {
    format!("before {i}\n").repeat(200)
}

fn after(i: usize) -> String {
    format!("after {i}\n").repeat(200)
}

/// A finished run that rewrote every file; its id.
fn rewritten(env: &Env) -> String {
    for i in 0..FILES {
        env.write(&format!("f{i}.txt"), &before(i));
    }
    let steps: Vec<Value> = (0..FILES)
        .map(|i| json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": format!("f{i}.txt"), "content": after(i)}}}))
        .chain([json!({"final_answer": "rewritten"})])
        .collect();
    let r = env.run(
        Value::Array(steps),
        &[
            "--approve",
            "all",
            "--max-steps",
            "500",
            "--max-tool-calls",
            "500",
        ],
        "rewrite everything",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.run_id()
}

/// Starts `bearagent rewind RUN --to 0` and kills it after `after`
/// (None: lets it finish); how long it ran.
fn rewind(env: &Env, run: &str, kill_after: Option<Duration>) -> Duration {
    let started = Instant::now();
    let mut child = env
        .command()
        .args(["rewind", run, "--to", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    match kill_after {
        Some(wait) => {
            std::thread::sleep(wait);
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
        }
        None => assert!(child.wait().unwrap().success()),
    }
    started.elapsed()
}

/// Starts `bearagent rewind RUN --to 0` and kills it once at least `files`
/// files are back (seen from outside, as a user's editor would).
fn rewind_until(env: &Env, run: &str, files: usize) {
    let mut child = env
        .command()
        .args(["rewind", run, "--to", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if before_count(env) >= files {
            let _ = child.kill(); // SIGKILL
            break;
        }
    }
    child.wait().unwrap();
}

/// How many files hold their "before" version; panics on a torn one.
fn before_count(env: &Env) -> usize {
    (0..FILES)
        .filter(|i| {
            let content = env.read(&format!("f{i}.txt")).unwrap();
            assert!(
                content == before(*i) || content == after(*i),
                "f{i}.txt is torn"
            );
            content == before(*i)
        })
        .count()
}

fn unsettled_reviews(events: &[Value]) -> Vec<String> {
    let mut open = std::collections::BTreeSet::new();
    for e in events {
        let p = &e["payload"];
        let path = p["path"].as_str().unwrap_or_default().to_owned();
        match p["type"].as_str().unwrap() {
            "review_intended" => {
                open.insert(path);
            }
            "artifact_rewound" | "review_abandoned" => {
                open.remove(&path);
            }
            _ => {}
        }
    }
    open.into_iter().collect()
}

#[test]
fn a_rewind_killed_at_a_random_moment_leaves_no_torn_file_and_is_settled_next_time() {
    // How long a whole rewind takes here, to aim the kills inside it.
    let timing = env();
    let run = rewritten(&timing);
    let whole = rewind(&timing, &run, None);
    assert_eq!(before_count(&timing), FILES);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    println!("whole rewind of {FILES} files: {whole:?}; seed {seed}");
    // Where in those `whole` the files are written depends on the machine
    // (the process's start, planning, saving what each file holds): aim
    // by halving, each round's kill at a random moment between the latest
    // one that came too early (nothing rewound) and the earliest one that
    // came too late (everything rewound).
    let (mut early, mut late) = (Duration::ZERO, whole);
    let mut state = seed;
    let rounds = 9;
    let mut mid = 0;
    for round in 0..rounds {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let share = ((state >> 33) % 1000) as f64 / 1000.0;
        let env = env();
        let run = rewritten(&env);
        // Even rounds: a random moment, aimed by halving. Odd rounds: once
        // a random number of files are back, seen from outside.
        let at = early + (late - early).mul_f64(share);
        let how = if round % 2 == 0 {
            rewind(&env, &run, Some(at));
            format!("after {at:?}")
        } else {
            let seen = 1 + ((state >> 20) as usize % (FILES / 2));
            rewind_until(&env, &run, seen);
            format!("once {seen} were back")
        };
        let done = before_count(&env);
        println!("round {round}: killed {how} → {done} of {FILES} rewound");
        match done {
            0 if round % 2 == 0 => early = at,
            FILES if round % 2 == 0 => late = at,
            0 | FILES => {}
            _ => mid += 1,
        }
        // The next rewind settles what the kill left open, then finishes.
        rewind(&env, &run, None);
        assert_eq!(before_count(&env), FILES, "round {round}");
        let events = env.events_of(&run);
        assert!(unsettled_reviews(&events).is_empty(), "round {round}");
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e["seq"], json!(i as u64 + 1), "round {round}: seq gap");
        }
    }
    // A test of torn files proves nothing unless kills land mid-rewind.
    assert!(
        mid * 3 >= rounds,
        "only {mid} of {rounds} kills landed mid-rewind (some files done, some not)"
    );
}
