//! End-to-end, real binary and real git: a worktree's apply is recorded
//! before it writes and can be undone. An apply merges into a file the
//! user had edited and lands a `chmod +x` made by a command in the
//! worktree; `apply --undo` puts the main checkout back byte for byte and
//! mode for mode, and refuses (naming the file, touching nothing) once the
//! user edits an applied file again. An apply of 200 files killed with
//! SIGKILL at random moments (of the whole apply, or just after its first
//! write) leaves every file before or after (never torn), the next start
//! records which, and re-apply / undo finish the job.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use support::git;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const CALC: &str =
    "def add(a, b):\n    return a - b\n\n\n# keep\n\n\ndef sub(a, b):\n    return a - b\n";

/// Every file of the checkout (`.git` aside): its bytes and mode.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_name() == ".git" {
            continue;
        }
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            files.insert(path.clone(), (std::fs::read(&path).unwrap(), mode));
        }
    }
    files
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// A finished run in a new worktree of `repo` that followed `steps`; its id.
fn worktree_run(env: &support::Env, repo: &Path, steps: Value, name: &str) -> String {
    let script = env.script(steps);
    let out = env
        .command()
        .args(["run", "--json", "--approve", "all", "--worktree", name])
        .args(["--max-steps", "50", "--script"])
        .arg(&script)
        .arg("--workspace")
        .arg(repo)
        .arg("work in a worktree")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["event"]["run_id"].as_str().unwrap().to_owned()
}

fn apply(env: &support::Env, args: &[&str]) -> std::process::Output {
    env.command().arg("apply").args(args).output().unwrap()
}

fn assert_ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn apply_then_undo_puts_back_the_users_edit_and_every_mode() {
    let env = support::env();
    let repo = env.ws().canonicalize().unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("calc.py"), CALC).unwrap();
    std::fs::write(repo.join("run.sh"), "echo hi\n").unwrap();
    std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "start"]);
    let run = worktree_run(
        &env,
        &repo,
        json!([
            {"tool_call": {"tool_name": "edit_file", "arguments": {
                "path": "calc.py", "old_string": "def add(a, b):\n    return a - b",
                "new_string": "def add(a, b):\n    return a + b"}}},
            {"tool_call": {"tool_name": "run_command", "arguments": {"command": "chmod +x run.sh"}}},
            {"tool_call": {"tool_name": "write_file", "arguments": {"path": "docs/new.txt", "content": "new\n"}}},
            {"final_answer": "done"}
        ]),
        "undo",
    );
    // The user's uncommitted edit, in the file the apply merges into.
    let mine = CALC.replace(
        "def sub(a, b):\n    return a - b",
        "def sub(a, b):\n    return a - b  # mine",
    );
    std::fs::write(repo.join("calc.py"), &mine).unwrap();
    let before = snapshot(&repo);

    let out = apply(&env, &[&run, "--json"]);
    assert_ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["merged"], json!(["calc.py"]), "{report}");
    let calc = std::fs::read_to_string(repo.join("calc.py")).unwrap();
    assert!(
        calc.contains("return a + b") && calc.contains("# mine"),
        "{calc}"
    );
    assert_eq!(
        mode(&repo.join("run.sh")) & 0o111,
        0o111,
        "the exec bit landed"
    );
    std::fs::write(env.scratch.path().join("umask-probe"), "").unwrap();
    let umask_mode = mode(&env.scratch.path().join("umask-probe"));
    let new_mode = mode(&repo.join("docs/new.txt"));
    assert_ne!(new_mode, 0o600);
    assert_eq!(new_mode, umask_mode, "a new file gets the umask's mode");
    assert_intent_before_outcome(&env.events_of(&run), "worktree_applied");

    assert_ok(&apply(&env, &[&run, "--undo"]));
    assert_eq!(
        snapshot(&repo),
        before,
        "byte and mode identical after undo"
    );
    assert_intent_before_outcome(&env.events_of(&run), "apply_undone");

    // Applied again, then the user edits an applied file: undo refuses it.
    assert_ok(&apply(&env, &[&run]));
    let edited = std::fs::read_to_string(repo.join("calc.py")).unwrap() + "# again\n";
    std::fs::write(repo.join("calc.py"), edited).unwrap();
    let held = snapshot(&repo);
    let refused = apply(&env, &[&run, "--undo"]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("calc.py"), "{said}");
    assert_eq!(snapshot(&repo), held, "a refused undo changes nothing");
    // Forced, it goes back and keeps the user's edit in the record.
    assert_ok(&apply(&env, &[&run, "--undo", "--force"]));
    assert_eq!(snapshot(&repo), before);
}

/// An event's kind: its type, or a worktree step's kind.
fn kind(e: &Value) -> String {
    let p = &e["payload"];
    match p["type"].as_str().unwrap_or_default() {
        "worktree_step" => p["step"]["kind"].as_str().unwrap_or_default().to_owned(),
        other => other.to_owned(),
    }
}

/// The last `apply_started` step is followed by `outcome`, caused by it.
fn assert_intent_before_outcome(events: &[Value], outcome: &str) {
    let last = events.last().unwrap();
    assert_eq!(kind(last), outcome);
    let intent = events
        .iter()
        .rev()
        .find(|e| kind(e) == "apply_started")
        .unwrap();
    assert_eq!(last["cause"], intent["seq"], "{last}");
}

const FILES: usize = 200;

fn before(i: usize) -> String {
    format!("before {i}\n").repeat(2000)
}

fn after(i: usize) -> String {
    format!("after {i}\n").repeat(2000)
}

/// How many files hold their "after" version; panics on a torn one or a
/// leftover temporary file.
fn after_count(repo: &Path) -> usize {
    for entry in std::fs::read_dir(repo).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with(".bearagent-tmp-"), "leftover {name}");
    }
    (0..FILES)
        .filter(|i| {
            let content = std::fs::read_to_string(repo.join(format!("f{i}.txt"))).unwrap();
            assert!(
                content == before(*i) || content == after(*i),
                "f{i}.txt is torn"
            );
            content == after(*i)
        })
        .count()
}

/// Runs `bearagent ARGS`, killed (SIGKILL) after `kill_after` (None: lets
/// it finish); how long it ran.
fn timed(env: &support::Env, args: &[&str], kill_after: Option<Duration>) -> Duration {
    let started = Instant::now();
    let mut child = env
        .command()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    match kill_after {
        Some(wait) => {
            std::thread::sleep(wait);
            child.kill().unwrap();
            child.wait().unwrap();
        }
        None => assert!(child.wait().unwrap().success()),
    }
    started.elapsed()
}

/// Starts `bearagent apply RUN`, waits until the first file it writes
/// (f0.txt, paths go in order) holds its new version, then SIGKILLs it
/// after `delay`.
fn killed_mid_writes(env: &support::Env, repo: &Path, run: &str, delay: Duration) {
    let mut child = env
        .command()
        .args(["apply", run])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = repo.join("f0.txt");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&first).unwrap() != after(0) && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            break;
        }
    }
    std::thread::sleep(delay);
    let _ = child.kill();
    child.wait().unwrap();
}

/// A repository of 200 committed files and a finished worktree run that
/// rewrote them all (by a command); the repository and the run.
fn rewritten(env: &support::Env) -> (PathBuf, String) {
    let repo = env.ws().canonicalize().unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    for i in 0..FILES {
        std::fs::write(repo.join(format!("f{i}.txt")), before(i)).unwrap();
    }
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "start"]);
    let rewrite = format!(
        "python3 -c \"[open(f'f{{i}}.txt','w').write(f'after {{i}}\\n'*2000) for i in range({FILES})]\""
    );
    let run = worktree_run(
        env,
        &repo,
        json!([
            {"tool_call": {"tool_name": "run_command", "arguments": {"command": rewrite}}},
            {"final_answer": "rewritten"}
        ]),
        "many",
    );
    (repo, run)
}

/// What the record says the last apply did: every file (`worktree_applied`)
/// or those settled as done after the kill; None when no intent was
/// committed since the last undo.
fn recorded_done(events: &[Value]) -> Option<usize> {
    let last = events.iter().rev().find(|e| {
        let k = kind(e);
        k == "worktree_applied" || k.starts_with("apply_")
    })?;
    let step = &last["payload"]["step"];
    match kind(last).as_str() {
        "worktree_applied" => Some(FILES),
        "apply_settled" => {
            assert_eq!(step["undo"], false);
            assert_eq!(step["neither"], json!([]), "{step}");
            Some(step["done"].as_array().unwrap().len())
        }
        "apply_undone" => None,
        other => panic!("the apply was left unsettled: {other}"),
    }
}

#[test]
fn an_apply_killed_at_a_random_moment_leaves_no_torn_file_and_is_settled_at_the_next_start() {
    let env = support::env();
    let (repo, run) = rewritten(&env);
    let whole = timed(&env, &["apply", &run], None);
    assert_eq!(after_count(&repo), FILES);
    timed(&env, &["apply", &run, "--undo"], None);
    assert_eq!(after_count(&repo), 0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    println!("whole apply of {FILES} files: {whole:?}; seed {seed}");
    let mut state = seed;
    for round in 0..6 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let share = 0.2 + ((state >> 33) % 900) as f64 / 1000.0;
        if round % 2 == 0 {
            timed(&env, &["apply", &run], Some(whole.mul_f64(share)));
        } else {
            // Aimed inside the writes: killed a moment after the first lands.
            killed_mid_writes(
                &env,
                &repo,
                &run,
                Duration::from_micros((state >> 40) % 30_000),
            );
        }
        // The next start (any command opening the store) settles it.
        assert!(env.bearagent(&["runs"]).status.success());
        let done = after_count(&repo);
        let when = if round % 2 == 0 {
            format!("at {:.0}% of a whole apply", share * 100.0)
        } else {
            "just after its first write".to_owned()
        };
        println!("round {round}: killed {when} → {done} of {FILES} applied");
        let events = env.events_of(&run);
        match recorded_done(&events) {
            Some(recorded) => assert_eq!(recorded, done, "round {round}: the record says so"),
            None => assert_eq!(done, 0, "round {round}: nothing recorded, nothing written"),
        }
        // Re-apply finishes the job; undo puts everything back.
        timed(&env, &["apply", &run], None);
        assert_eq!(after_count(&repo), FILES, "round {round}");
        timed(&env, &["apply", &run, "--undo"], None);
        assert_eq!(after_count(&repo), 0, "round {round}");
        assert_eq!(git(&repo, &["status", "--porcelain"]), "", "round {round}");
    }
}
