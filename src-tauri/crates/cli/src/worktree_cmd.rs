//! `bearagent apply`, `discard` and `worktrees`: landing, throwing away and
//! listing the worktrees runs worked in.

use crate::args::{ApplyArgs, InspectArgs, WorktreesArgs};
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_kernel::units::human_bytes;
use bearagent_runtime::worktrees::{WorktreeEntry, WorktreeState};
use bearagent_runtime::Application;
use serde_json::json;

/// Exit 0 when every file landed, 1 when some were refused (named).
pub fn apply(app: &Application, q: ApplyArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if q.undo {
        return undo(app, run, q.force, q.json);
    }
    let report = match app.apply_worktree(run, &q.paths) {
        Ok(report) => report,
        Err(e) => return exit::report(&e),
    };
    if q.json {
        let refused: Vec<_> = report
            .refused
            .iter()
            .map(|r| json!({"path": r.path, "reason": r.reason}))
            .collect();
        println!(
            "{}",
            json!({"run_id": run.to_string(), "applied": report.applied, "merged": report.merged, "refused": refused})
        );
    } else {
        for path in &report.applied {
            println!("applied  {path}");
        }
        for path in &report.merged {
            println!("merged   {path}");
        }
        for r in &report.refused {
            println!("refused  {}: {}", r.path, r.reason);
        }
        if report.applied.is_empty() && report.merged.is_empty() && report.refused.is_empty() {
            println!("the worktree changed no file");
        }
    }
    if report.refused.is_empty() {
        Exit::Succeeded
    } else {
        Exit::Failed
    }
}

/// `apply RUN --undo [--force]`: exit 0 once every file is back, else
/// the refusal (naming the files changed since) and nothing touched.
fn undo(app: &Application, run: bearagent_kernel::RunId, force: bool, json: bool) -> Exit {
    match app.undo_apply(run, force) {
        Ok(restored) => {
            if json {
                println!(
                    "{}",
                    json!({"run_id": run.to_string(), "restored": restored})
                );
            } else {
                for path in &restored {
                    println!("restored {path}");
                }
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

pub fn discard(app: &Application, q: InspectArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(run) => run,
        Err(code) => return code,
    };
    match app.discard_worktree(run) {
        Ok(()) => {
            if q.json {
                println!("{}", json!({"run_id": run.to_string(), "discarded": true}));
            } else {
                println!("discarded the worktree of run {run}");
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

pub fn worktrees(app: &Application, q: WorktreesArgs) -> Exit {
    let prune = q.action.as_deref() == Some("prune");
    let listed = if prune {
        app.prune_worktrees()
    } else {
        app.worktrees()
    };
    let mut entries = match listed {
        Ok(entries) => entries,
        Err(e) => return exit::report(&e),
    };
    if !prune && !q.all {
        entries.retain(|e| !matches!(e.state, WorktreeState::Discarded | WorktreeState::Removed));
    }
    for e in &entries {
        if q.json {
            println!("{}", entry_json(e));
        } else {
            let verb = if prune { "pruned " } else { "" };
            println!(
                "{verb}{}  {}  {}  {}  runs: {}",
                e.worktree.path,
                e.worktree.branch,
                e.state.as_str(),
                human_bytes(e.size_bytes),
                e.runs
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if entries.is_empty() && !q.json {
        println!(
            "{}",
            if prune {
                "nothing to prune"
            } else {
                "no worktrees"
            }
        );
    }
    Exit::Succeeded
}

fn entry_json(e: &WorktreeEntry) -> serde_json::Value {
    json!({
        "path": e.worktree.path,
        "repo": e.worktree.repo,
        "branch": e.worktree.branch,
        "base": e.worktree.base,
        "start": e.worktree.start,
        "carried_changes": e.worktree.carried_changes,
        "state": e.state.as_str(),
        "size_bytes": e.size_bytes,
        "runs": e.runs.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
    })
}
