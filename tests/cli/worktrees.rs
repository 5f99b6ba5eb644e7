//! End-to-end: runs in git worktrees through the real `bearagent` binary.
//! Three processes start together in three worktrees of one repository,
//! each edits the same line differently and runs a command in its sandbox;
//! the main checkout (dirty before) stays byte-identical; one run applies,
//! the next conflicts by name and changes nothing, one is discarded, the
//! applied one is pruned — and `git worktree list` agrees at every step.
//! A worktree run killed with SIGKILL shows interrupted, its worktree intact.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use support::git;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";

/// A repository with calc.py committed, then a dirty tracked file and an
/// untracked one planted.
fn repo(env: &support::Env) -> PathBuf {
    let repo = env.ws().canonicalize().unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("calc.py"), CALC).unwrap();
    std::fs::write(repo.join("notes.md"), "notes\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "start"]);
    std::fs::write(repo.join("notes.md"), "notes\nmy own unsaved thought\n").unwrap();
    std::fs::write(repo.join("scratch.txt"), "untracked\n").unwrap();
    repo
}

/// Every file of the main checkout (`.git` aside) and its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_name() == ".git" {
            continue;
        }
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    files
}

fn edit_script(env: &support::Env, repo: &Path, n: u32) -> PathBuf {
    // The main checkout is read-only inside the run's sandbox.
    let escape = format!("echo escaped > {}/escaped-{n}.txt", repo.display());
    env.script(json!([
        {"tool_call": {"tool_name": "run_command", "arguments": {"command": escape}}},
        {"tool_call": {"tool_name": "edit_file", "arguments": {
            "path": "calc.py", "old_string": "def add(a, b):\n    return a - b",
            "new_string": format!("def add(a, b):\n    return a + b  # run {n}")}}},
        {"tool_call": {"tool_name": "run_command", "arguments": {"command": "python3 -B -c \"import calc; print(calc.add(2, 3))\""}}},
        {"final_answer": format!("run {n} done")}
    ]))
}

fn worktree_run(env: &support::Env, repo: &Path, script: &Path, name: &str) -> Command {
    let mut c = env.command();
    c.args([
        "run",
        "--json",
        "--approve",
        "all",
        "--worktree",
        name,
        "--script",
    ])
    .arg(script)
    .arg("--workspace")
    .arg(repo)
    .arg("fix add")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c
}

/// `bearagent run --json --approve all ARGS --script SCRIPT GOAL`, which
/// must succeed.
fn then_run(env: &support::Env, args: &[&str], script: &Path, goal: &str) {
    let out = env
        .command()
        .args(["run", "--json", "--approve", "all"])
        .args(args)
        .arg("--script")
        .arg(script)
        .arg(goal)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn listed(env: &support::Env) -> Vec<Value> {
    let out = env.bearagent(&["worktrees", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `git worktree list` and `bearagent worktrees` name the same folders.
fn assert_lists_agree(env: &support::Env, repo: &Path) {
    let porcelain = git(repo, &["worktree", "list", "--porcelain"]);
    let mut from_git: Vec<String> = porcelain
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .filter(|p| Path::new(p) != repo)
        .map(str::to_owned)
        .collect();
    let mut ours: Vec<String> = listed(env)
        .iter()
        .map(|w| w["path"].as_str().unwrap().to_owned())
        .collect();
    from_git.sort();
    ours.sort();
    assert_eq!(from_git, ours);
}

fn run_id_of(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["event"]["run_id"].as_str().unwrap().to_owned()
}

/// Starts the three edit runs as three processes at once; their run ids,
/// each checked: the write to the main checkout failed, the test ran.
fn three_at_once(env: &support::Env, repo: &Path) -> Vec<String> {
    let children: Vec<_> = (1..=3)
        .map(|n| {
            worktree_run(env, repo, &edit_script(env, repo, n), &format!("w{n}"))
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let mut runs = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        assert!(
            out.status.success(),
            "run {}: {}",
            i + 1,
            String::from_utf8_lossy(&out.stderr)
        );
        let run = run_id_of(&out.stdout);
        let finished: Vec<Value> = env
            .events_of(&run)
            .into_iter()
            .filter(|e| e["payload"]["type"] == "command_finished")
            .collect();
        assert_eq!(finished.len(), 2, "the commands ran in run {}", i + 1);
        assert_ne!(
            finished[0]["payload"]["exit_code"], 0,
            "writing to the main checkout failed: {}",
            finished[0]
        );
        assert_eq!(finished[1]["payload"]["exit_code"], 0, "{}", finished[1]);
        runs.push(run);
    }
    runs
}

fn assert_each_holds_its_own_change(env: &support::Env, repo: &Path) {
    let worktrees = listed(env);
    assert_eq!(worktrees.len(), 3);
    for n in 1..=3 {
        let w = worktrees
            .iter()
            .find(|w| w["branch"] == format!("bearagent/w{n}"))
            .unwrap();
        assert_eq!(w["state"], "ready to apply");
        let path = Path::new(w["path"].as_str().unwrap());
        assert!(!path.starts_with(repo), "never inside the repository");
        let calc = std::fs::read_to_string(path.join("calc.py")).unwrap();
        assert!(calc.contains(&format!("return a + b  # run {n}")), "{calc}");
        assert_eq!(calc.matches("# run").count(), 1, "only its own change");
    }
}

/// A follow-up of run 3 continues in its worktree; a fork of run 2
/// branches a new worktree from run 2's files.
fn follow_up_and_fork(env: &support::Env, repo: &Path, runs: &[String]) {
    let follow = env.script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "extra.txt", "content": "more\n"}}},
        {"final_answer": "more done"}
    ]));
    then_run(env, &["--continue", &runs[2]], &follow, "and one more file");
    let w3 = listed(env)
        .into_iter()
        .find(|w| w["branch"] == "bearagent/w3")
        .unwrap();
    assert_eq!(w3["runs"].as_array().unwrap().len(), 2);
    assert!(Path::new(w3["path"].as_str().unwrap())
        .join("extra.txt")
        .exists());
    assert!(!repo.join("extra.txt").exists());

    // A fork of run 2 branches a new worktree from run 2's files.
    let fork = env.script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "fork.txt", "content": "forked\n"}}},
        {"final_answer": "forked"}
    ]));
    then_run(
        env,
        &["--fork", &runs[1], "--at", "2", "--worktree", "f2"],
        &fork,
        "try another way",
    );
    let f2 = listed(env)
        .into_iter()
        .find(|w| w["branch"] == "bearagent/f2")
        .unwrap();
    let f2_path = Path::new(f2["path"].as_str().unwrap());
    assert!(std::fs::read_to_string(f2_path.join("calc.py"))
        .unwrap()
        .contains("# run 2"));
    assert!(f2_path.join("fork.txt").exists());
    assert_lists_agree(env, repo);
}

#[test]
fn three_worktree_runs_at_once_then_apply_conflict_discard_and_prune() {
    let env = support::env();
    let repo = repo(&env);
    let before = snapshot(&repo);
    let status_before = git(&repo, &["status", "--porcelain"]);

    let runs = three_at_once(&env, &repo);
    assert_eq!(
        snapshot(&repo),
        before,
        "the main checkout is byte-identical"
    );
    assert_eq!(git(&repo, &["status", "--porcelain"]), status_before);

    assert_each_holds_its_own_change(&env, &repo);
    assert_lists_agree(&env, &repo);

    // Run 1 lands; the main checkout's own changes stay.
    let out = env.bearagent(&["apply", &runs[0], "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["applied"], json!(["calc.py"]));
    let landed = std::fs::read_to_string(repo.join("calc.py")).unwrap();
    assert!(landed.contains("# run 1"));
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.md")).unwrap(),
        "notes\nmy own unsaved thought\n"
    );

    // Run 2 changed the same line: refused by name, nothing changes.
    let after_first = snapshot(&repo);
    let out = env.bearagent(&["apply", &runs[1], "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["refused"][0]["path"], "calc.py");
    assert!(report["refused"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("same lines"));
    assert_eq!(snapshot(&repo), after_first);

    follow_up_and_fork(&env, &repo, &runs);

    // Run 3 is discarded: its folder and branch are gone.
    let out = env.bearagent(&["discard", &runs[2]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!git(&repo, &["branch", "--list", "bearagent/w3"]).contains("w3"));
    assert_lists_agree(&env, &repo);

    // Prune removes the applied one only; run 2 (refused) and the fork
    // stay to decide.
    let out = env.bearagent(&["worktrees", "prune"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut left: Vec<String> = listed(&env)
        .iter()
        .map(|w| w["branch"].as_str().unwrap().to_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["bearagent/f2", "bearagent/w2"]);
    assert_lists_agree(&env, &repo);
    assert!(
        String::from_utf8_lossy(&env.bearagent(&["apply", &runs[0]]).stderr)
            .contains("removed already")
    );
}

#[test]
fn a_worktree_run_killed_mid_command_shows_interrupted_with_its_worktree_intact() {
    let env = support::env();
    let repo = repo(&env);
    let script = env.script(json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "new.txt", "content": "made in the worktree\n"}}},
        {"tool_call": {"tool_name": "run_command", "arguments": {"command": "sleep 60"}}},
        {"final_answer": "never"}
    ]));
    let mut child = worktree_run(&env, &repo, &script, "killed")
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let started = env.runs().first().is_some_and(|r| {
            let events = env.events_of(r["run_id"].as_str().unwrap());
            events
                .iter()
                .any(|e| e["payload"]["type"] == "command_started")
        });
        if started {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let runs = env.runs();
    assert_eq!(runs[0]["status"]["kind"], "interrupted", "{:?}", runs[0]);
    let worktrees = listed(&env);
    assert_eq!(worktrees.len(), 1);
    assert_eq!(worktrees[0]["state"], "ready to apply");
    let folder = Path::new(worktrees[0]["path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(folder.join("new.txt")).unwrap(),
        "made in the worktree\n"
    );
    assert!(!repo.join("new.txt").exists());
    assert_lists_agree(&env, &repo);
}

#[test]
fn a_repository_s_hooks_never_run_when_its_worktree_is_made() {
    use std::os::unix::fs::PermissionsExt;
    let env = support::env();
    let repo = repo(&env);
    let marker = env.scratch.path().join("hook-ran");
    let hook = repo.join(".git/hooks/post-checkout");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = env.script(json!([{"final_answer": "nothing to do"}]));
    let out = worktree_run(&env, &repo, &script, "hooked")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listed(&env).len(), 1);
    assert!(!marker.exists(), "the repository's post-checkout hook ran");
    // Outside the repository's top folder, or not a repository: refused.
    let sub = repo.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = worktree_run(&env, &sub, &script, "sub").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("top folder"));
}
