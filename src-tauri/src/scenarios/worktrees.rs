//! Runs in git worktrees, recorded in a real repository: two runs, each in
//! a worktree of its own (one named, one named from its run id, started
//! from `main` with the main checkout's uncommitted changes), rewrite the
//! same lines of the tracked `outputs/report.md` differently. Then what the
//! window asks, each answered by the real runtime from the state it was
//! recorded in: the first applied, the second refused for the same lines,
//! the first's apply undone, the second discarded, the first applied again
//! and pruned — each with the events it appended, the worktrees listed
//! after and the main checkout's report. Also a follow-up in the first
//! worktree (another session, the same first run) and two refused starts:
//! a name whose folder exists, a folder that is no repository.

use super::provider::provider;
use super::session::Session;
use crate::dto::worktrees::{ApplyReportView, WorktreeView};
use crate::dto::ApiError;
use bearagent_kernel::{ApprovalMode, RunId, Worktree};
use bearagent_runtime::worktrees::WorktreeRequest;
use bearagent_runtime::{AppError, RunProfile, StartRun, ThreadStart};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

pub const GOAL: &str = "Compare the architecture notes and write outputs/report.md";
const FOLLOW_UP: &str = "Now add a summary section at the top";
const REPORT: &str = "outputs/report.md";
const START: &str =
    "# Report\n\n## Conclusion\n\nTo be written.\n\n## Open questions\n\nNone yet.\n";
/// What each take's run writes: the same lines, differently.
const VERSIONS: [&str; 2] = [
    "# Report\n\n## Conclusion\n\nKeep the event-sourced core with thin shells.\n\n## Open questions\n\nNone yet.\n",
    "# Report\n\n## Conclusion\n\nSplit the desktop shell out of the core first.\n\n## Open questions\n\nNone yet.\n",
];
const SUMMARY: &str = "# Report\n\n**Summary:** keep the core, thin the shells.\n\n## Conclusion\n\nKeep the event-sourced core with thin shells.\n\n## Open questions\n\nNone yet.\n";
const NOTES: &str = "# Architecture notes\n\n- Every fact is an event; projections are derived.\n- The desktop shell and the CLI are thin: both call the same application API.\n";

/// The worktrees' folder (`<data>/worktrees/<repo folder>-<hash>`), and
/// each take's worktree name, as the fixture writes them (the mock puts
/// its own in).
pub const WORKTREES: &str =
    "/home/dev/.local/share/bearagent/worktrees/bearagent-scenario-00000000";
pub const NAMES: [&str; 2] = ["wt-name-0", "wt-name-1"];
/// The commits: the repository's HEAD, and the one carrying the main
/// checkout's changes into the second worktree.
const COMMITS: [&str; 2] = [
    "ba5eba5eba5eba5eba5eba5eba5eba5eba5eba5e",
    "ca77ca77ca77ca77ca77ca77ca77ca77ca77ca77",
];

fn call(id: &str, tool: &str, args: Value, text: &str) -> Value {
    json!({"text": text, "tool_call": {"call_id": id, "tool_name": tool, "arguments": args}, "usage": {"input": 1_400, "output": 120}})
}

fn answer(text: &str) -> Value {
    json!({"final_answer": text, "usage": {"input": 1_900, "output": 40}})
}

/// Take `k`'s run: read the notes, rewrite the conclusion, answer.
fn script(k: usize) -> Vec<Value> {
    vec![
        call(
            "call_1",
            "read_file",
            json!({"path": "docs/architecture.md"}),
            "Reading the architecture notes. ",
        ),
        call(
            "call_2",
            "write_file",
            json!({"path": REPORT, "content": VERSIONS[k]}),
            "Writing the conclusion into outputs/report.md. ",
        ),
        answer("Done: outputs/report.md holds the conclusion."),
    ]
}

/// What the window asks for take `k`'s worktree.
fn request(k: usize) -> (Value, WorktreeRequest) {
    let request = [
        WorktreeRequest {
            name: Some(NAMES[0].into()),
            base: None,
            carry_changes: false,
        },
        WorktreeRequest {
            name: None,
            base: Some("main".into()),
            carry_changes: true,
        },
    ][k]
        .clone();
    let input =
        json!({"name": request.name, "base": request.base, "carryChanges": request.carry_changes});
    (input, request)
}

/// `git ARGS` in `dir` as a developer would, at a fixed date.
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=Dev", "-c", "user.email=dev@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", "2027-01-15T08:00:00Z")
        .env("GIT_COMMITTER_DATE", "2027-01-15T08:00:00Z")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The workspace: a repository on `main` with the report and the notes committed.
#[expect(
    clippy::disallowed_methods,
    reason = "a test's own repository: the report's mode fixed, whatever the umask"
)]
fn repository(s: &Session) {
    use std::os::unix::fs::PermissionsExt;
    s.write(REPORT, START);
    s.write("docs/architecture.md", NOTES);
    let report = s.ws.path().join(REPORT);
    std::fs::set_permissions(report, std::fs::Permissions::from_mode(0o644)).unwrap();
    git(s.ws.path(), &["init", "-q", "-b", "main"]);
    git(s.ws.path(), &["add", "-A"]);
    git(s.ws.path(), &["commit", "-q", "-m", "Start the report"]);
}

fn start(s: &Session, workspace: &str, k: usize, steps: &[Value]) -> Result<RunId, AppError> {
    let start = StartRun {
        workspace: workspace.into(),
        goal: GOAL.into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: Arc::new(provider(steps, None)),
        images: Vec::new(),
    };
    s.app.start_run_in_worktree(start, request(k).1)
}

/// The main checkout's report (null: absent).
fn main_files(s: &Session) -> Value {
    let text = std::fs::read_to_string(s.ws.path().join(REPORT)).ok();
    json!({ REPORT: text })
}

fn listed(s: &Session) -> Vec<WorktreeView> {
    let entries = s.app.worktrees().unwrap();
    entries.into_iter().map(WorktreeView::from).collect()
}

/// The list's entry of `run`'s worktree.
fn entry_of(s: &Session, run: RunId) -> Value {
    let entry = listed(s)
        .into_iter()
        .find(|w| w.runs.contains(&run.to_string()));
    serde_json::to_value(entry).unwrap()
}

/// The worktree `run` recorded on its first event.
fn worktree_of(s: &Session, run: RunId) -> Worktree {
    s.app.worktree_of(run).unwrap()
}

/// The session's folders, ids and commits replaced by placeholders: the
/// repository by the workspace, each take's worktree (`(k, worktree)`) by
/// its folder under [`WORKTREES`] and its name [`NAMES`]`[k]`, `runs[i]`
/// by run `i`; the owner of each step fixed.
fn placeholders(s: &Session, value: Value, runs: &[RunId], trees: &[(usize, Worktree)]) -> Value {
    let mut text = value.to_string();
    if let Some(first) = runs.first() {
        let id = s.app.get_run(*first).unwrap().workspace_id.to_string();
        text = text.replace(&id, super::WORKSPACE_ID);
    }
    for (i, run) in runs.iter().enumerate() {
        text = text.replace(&run.to_string(), &super::run_placeholder(i));
    }
    // Every worktree's own folder first: they share the folder above.
    for (k, w) in trees {
        text = text
            .replace(&w.path, &format!("{WORKTREES}/{}", NAMES[*k]))
            .replace(&w.branch, &format!("bearagent/{}", NAMES[*k]));
    }
    for (_, w) in trees {
        let root = Path::new(&w.path).parent().unwrap().display().to_string();
        text = text.replace(&root, WORKTREES).replace(&w.base, COMMITS[0]);
        if w.start != w.base {
            text = text.replace(&w.start, COMMITS[1]);
        }
    }
    text = text
        .replace(&s.workspace(), super::WORKSPACE_PATH)
        .replace(&s.home.path().display().to_string(), super::DATA_FOLDER);
    let mut value: Value = serde_json::from_str(&text).unwrap();
    super::normalise::steady_owners(&mut value);
    value
}

/// Everything of take `k`'s finished `run`, with its worktree's entry.
async fn take(s: &Session, run: RunId, k: usize) -> Value {
    let mut recorded = s.recorded(run).await;
    recorded["worktree"] = entry_of(s, run);
    let names = [
        "a named worktree from HEAD",
        "a worktree named from its run, from main with the uncommitted changes",
    ];
    let take = json!({"name": names[k], "decisions": [], "worktree_request": request(k).0, "run": recorded});
    placeholders(s, take, &[run], &[(k, worktree_of(s, run))])
}

/// The recorded requests of one session on the worktrees of its takes' runs.
struct Steps<'a> {
    s: &'a Session,
    /// Take `k`'s run.
    runs: Vec<RunId>,
    steps: Vec<Value>,
}

impl Steps<'_> {
    /// The state of take `k`'s worktree (all when None): its state and
    /// how many runs worked in it.
    fn worktrees(&self, only: Option<usize>) -> Value {
        let list = listed(self.s);
        let states: Vec<Value> = (0..self.runs.len())
            .filter(|k| only.is_none_or(|o| o == *k))
            .filter_map(|k| {
                let run = self.runs[k].to_string();
                let w = list.iter().find(|w| w.runs.first() == Some(&run))?;
                Some(json!({"take": k, "state": w.state, "runs": w.runs.len()}))
            })
            .collect();
        Value::Array(states)
    }

    /// Records what `act` answered to `request` (on take `only`'s worktree,
    /// or on all), from the state before: the events it appended, the list
    /// and the main checkout's report after.
    async fn step(
        &mut self,
        request: Value,
        only: Option<usize>,
        act: impl FnOnce(&Session) -> Result<Value, AppError>,
    ) {
        let before = json!({"worktrees": self.worktrees(only), "main": main_files(self.s)});
        let outcome = match act(self.s) {
            Ok(value) => json!({"ok": value}),
            Err(e) => json!({"error": ApiError::from(e)}),
        };
        let mut updates = Vec::new();
        for run in &self.runs {
            updates.extend(self.s.updates(*run).await);
        }
        let after = json!({"main": main_files(self.s), "list": listed(self.s)});
        self.steps.push(json!({"request": request, "before": before, "outcome": outcome, "updates": updates, "after": after}));
    }
}

fn report(r: bearagent_runtime::worktrees::ApplyReport) -> Value {
    serde_json::to_value(ApplyReportView::from(r)).unwrap()
}

/// Apply, the conflicting apply, undo, discard, apply again and prune.
async fn record_steps(steps: &mut Steps<'_>) {
    let (a, b) = (steps.runs[0], steps.runs[1]);
    let apply = |k: usize| json!({"cmd": "apply_worktree", "take": k, "paths": []});
    steps
        .step(apply(0), Some(0), |s| {
            s.app.apply_worktree(a, &[]).map(report)
        })
        .await;
    steps
        .step(apply(1), Some(1), |s| {
            s.app.apply_worktree(b, &[]).map(report)
        })
        .await;
    let undo = json!({"cmd": "undo_apply", "take": 0, "force": false});
    steps
        .step(undo, Some(0), |s| {
            s.app.undo_apply(a, false).map(|p| json!(p))
        })
        .await;
    let discard = json!({"cmd": "discard_worktree", "take": 1});
    steps
        .step(discard, Some(1), |s| {
            s.app.discard_worktree(b).map(|()| Value::Null)
        })
        .await;
    // Applied again from the state of the first apply: recorded there already.
    steps.s.app.apply_worktree(a, &[]).unwrap();
    steps.s.updates(a).await;
    let prune = json!({"cmd": "prune_worktrees"});
    steps
        .step(prune, None, |s| {
            let pruned = s.app.prune_worktrees()?;
            let views: Vec<WorktreeView> = pruned.into_iter().map(WorktreeView::from).collect();
            Ok(serde_json::to_value(views).unwrap())
        })
        .await;
}

/// A start refused: what the window asked and the error, as a step.
fn refused(request: Value, outcome: Result<RunId, AppError>) -> Value {
    let error = ApiError::from(outcome.expect_err("the start is refused"));
    json!({"request": request, "outcome": {"error": error}})
}

/// Both takes, the requests on their worktrees and the refused starts.
async fn two_worktrees() -> (Vec<Value>, Value, Value) {
    let s = Session::new(None);
    repository(&s);
    let a = start(&s, &s.workspace(), 0, &script(0)).unwrap();
    s.finish(a).await;
    let taken = start(&s, &s.workspace(), 0, &script(0));
    let taken = refused(json!({"cmd": "start_run", "why": "name_taken"}), taken);
    let b = start(&s, &s.workspace(), 1, &script(1)).unwrap();
    s.finish(b).await;
    let takes = vec![take(&s, a, 0).await, take(&s, b, 1).await];
    let plain = tempfile::tempdir().unwrap();
    let folder = plain.path().display().to_string();
    let not_repo = refused(
        json!({"cmd": "start_run", "why": "not_a_repository"}),
        start(&s, &folder, 0, &script(0)),
    );
    let not_repo: Value =
        serde_json::from_str(&not_repo.to_string().replace(&folder, super::WORKSPACE_PATH))
            .unwrap();
    let mut steps = Steps {
        s: &s,
        runs: vec![a, b],
        steps: Vec::new(),
    };
    record_steps(&mut steps).await;
    let trees = [(0, worktree_of(&s, a)), (1, worktree_of(&s, b))];
    let recorded = json!({"steps": steps.steps, "refusals": [taken, not_repo]});
    let recorded = placeholders(&s, recorded, &[a, b], &trees);
    (
        takes,
        recorded["steps"].clone(),
        recorded["refusals"].clone(),
    )
}

/// Take 0 again in a session of its own, and a follow-up in its worktree.
async fn follow_up(first: &Value) -> Value {
    let s = Session::new(None);
    repository(&s);
    let a = start(&s, &s.workspace(), 0, &script(0)).unwrap();
    s.finish(a).await;
    let steady = |v: &Value| super::normalise::steady(&serde_json::to_string_pretty(v).unwrap());
    let again = take(&s, a, 0).await;
    assert_eq!(steady(&again), steady(first), "the first run again");
    let steps = [
        call(
            "call_1",
            "write_file",
            json!({"path": REPORT, "content": SUMMARY}),
            "Adding the summary at the top. ",
        ),
        answer("Done: the report starts with a summary."),
    ];
    let start = StartRun {
        workspace: String::new(),
        goal: FOLLOW_UP.into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: Arc::new(provider(&steps, None)),
        images: Vec::new(),
    };
    let thread = ThreadStart {
        run_id: a,
        at: None,
    };
    let follow = s.app.start_follow_up(start, thread).unwrap();
    s.finish(follow).await;
    let mut recorded = s.recorded(follow).await;
    recorded["worktree"] = entry_of(&s, follow);
    placeholders(&s, recorded, &[a, follow], &[(0, worktree_of(&s, a))])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worktrees_scenario_is_what_the_runtime_records_now() {
    let (mut takes, steps, refusals) = two_worktrees().await;
    let follow = follow_up(&takes[0]).await;
    takes[0]["follow_up"] = follow;
    let placeholders = json!({"worktrees": WORKTREES, "worktree_names": NAMES});
    let fields = json!({"steps": steps, "refusals": refusals, "main_start": {REPORT: START}});
    super::check_with("worktrees", takes, placeholders, fields);
}
