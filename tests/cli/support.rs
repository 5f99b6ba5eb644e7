//! Helpers for driving the real `bearagent` binary on temp workspaces.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Env {
    pub home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
    pub scratch: tempfile::TempDir,
}

pub fn env() -> Env {
    Env {
        home: tempfile::tempdir().unwrap(),
        workspace: tempfile::tempdir().unwrap(),
        scratch: tempfile::tempdir().unwrap(),
    }
}

impl Env {
    pub fn ws(&self) -> &Path {
        self.workspace.path()
    }

    pub fn write(&self, rel: &str, content: &str) {
        let p = self.ws().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.ws().join(rel)).ok()
    }

    pub fn script(&self, steps: Value) -> PathBuf {
        let p = self
            .scratch
            .path()
            .join(format!("script-{}.json", rand_suffix()));
        std::fs::write(&p, steps.to_string()).unwrap();
        p
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_bearagent"));
        c.env("BEARAGENT_HOME", self.home.path())
            .env_remove("BEARAGENT_LOG")
            .stdin(std::process::Stdio::null());
        c
    }

    /// `bearagent run --json --script S --workspace W EXTRA... GOAL`
    pub fn run(&self, steps: Value, extra: &[&str], goal: &str) -> RunResult {
        let script = self.script(steps);
        let out = self
            .command()
            .args(["run", "--json", "--script"])
            .arg(&script)
            .arg("--workspace")
            .arg(self.ws())
            .args(extra)
            .arg(goal)
            .output()
            .unwrap();
        let result = RunResult::from_output(out);
        self.assert_replays(&result);
        result
    }

    /// Every run a test makes is also a replay test: once it ended, it is
    /// re-driven from its record by `bearagent replay` and must be
    /// identical.
    pub fn assert_replays(&self, result: &RunResult) {
        const ENDS: [&str; 5] = [
            "run_succeeded",
            "run_failed",
            "run_cancelled",
            "budget_exhausted",
            "run_interrupted",
        ];
        let ended = result
            .events
            .last()
            .is_some_and(|e| ENDS.contains(&e["payload"]["type"].as_str().unwrap_or("")));
        if !ended {
            return;
        }
        let run = result.run_id();
        let out = self.bearagent(&["replay", &run, "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "replay of {run} printed no report: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(
            report["identical"], true,
            "the run does not replay identically: {report:#}"
        );
    }

    /// Keeps `run_id` (with its thread) in the replay corpus the runtime's
    /// tests replay (`tests/replay-corpus/NAME.bearagent-run`): written
    /// when `BEARAGENT_UPDATE_CORPUS` is set, else it must be there.
    pub fn keep(&self, name: &str, run_id: &str) {
        let file = corpus_dir().join(format!("{name}.bearagent-run"));
        if std::env::var_os("BEARAGENT_UPDATE_CORPUS").is_none() {
            assert!(
                file.is_file(),
                "{} is missing: BEARAGENT_UPDATE_CORPUS=1 cargo test -p bearagent-cli",
                file.display()
            );
            return;
        }
        let out = self
            .command()
            .args(["export", run_id, "--bundle"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn bearagent(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// A run's stored events, read by a separate `bearagent events` process.
    pub fn events_of(&self, run_id: &str) -> Vec<Value> {
        self.json_lines(&["events", run_id, "--json", "--limit", "5000"])
            .into_iter()
            .map(|line| line["event"].clone())
            .collect()
    }

    /// Every run, newest first, as `bearagent runs --json` lists them.
    pub fn runs(&self) -> Vec<Value> {
        self.json_lines(&["runs", "--json"])
    }

    pub fn json_lines(&self, args: &[&str]) -> Vec<Value> {
        let out = self.bearagent(args);
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
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

pub struct RunResult {
    pub code: i32,
    pub events: Vec<Value>,
    pub stderr: String,
    pub stdout: String,
}

impl RunResult {
    pub fn from_output_pub(out: Output) -> Self {
        Self::from_output(out)
    }

    fn from_output(out: Output) -> Self {
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let events = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["kind"] == "event")
            .map(|v| v["event"].clone())
            .collect();
        RunResult {
            code: out.status.code().unwrap_or(-1),
            events,
            stderr: String::from_utf8_lossy(&out.stderr).to_string(),
            stdout,
        }
    }

    pub fn types(&self) -> Vec<String> {
        self.events
            .iter()
            .map(|e| e["payload"]["type"].as_str().unwrap().to_owned())
            .collect()
    }

    pub fn of_type(&self, t: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["payload"]["type"] == t)
            .collect()
    }

    pub fn run_id(&self) -> String {
        self.events[0]["run_id"].as_str().unwrap().to_owned()
    }

    pub fn assert_seqs_contiguous(&self) {
        for (i, e) in self.events.iter().enumerate() {
            assert_eq!(
                e["seq"],
                json!(i as u64 + 1),
                "event {i} out of order: {}",
                self.stdout
            );
        }
    }
}

pub fn read(path: &str) -> Value {
    json!({"tool_call": {"tool_name": "read_file", "arguments": {"path": path}}})
}

pub fn write(path: &str, content: &str) -> Value {
    json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": path, "content": content}}})
}

pub fn answer(text: &str) -> Value {
    json!({"final_answer": text})
}

/// Where the replay corpus lives: `tests/replay-corpus` at the top.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/replay-corpus")
}

/// `git ARGS` in `dir` as a test user, which must succeed; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
