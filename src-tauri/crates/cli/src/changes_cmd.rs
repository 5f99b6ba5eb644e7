//! `bearagent changes` and `bearagent revert`: a run's files, reviewed from
//! the terminal with the same guards as the app.

use crate::args::{ChangesArgs, RevertArgs};
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_runtime::artifacts::{ArtifactView, DiskState, Review, UntrackedEffect};
use bearagent_runtime::Application;
use serde_json::json;

fn review_name(r: Review) -> &'static str {
    match r {
        Review::Pending => "pending",
        Review::Kept => "kept",
        Review::Reverted => "reverted",
        Review::Partial => "partly reverted",
    }
}

fn disk_name(d: DiskState) -> &'static str {
    match d {
        DiskState::RunVersion => "run version",
        DiskState::BeforeVersion => "before version",
        DiskState::ReviewedVersion => "reviewed version",
        DiskState::ChangedSince => "changed since",
    }
}

fn artifact_json(a: &ArtifactView) -> serde_json::Value {
    json!({
        "path": a.record.path,
        "change": a.record.change().as_str(),
        "review": review_name(a.record.review),
        "disk": disk_name(a.disk),
        "before_hash": a.record.before,
        "after_hash": a.record.after,
        "lines_added": a.lines.map(|l| l.0),
        "lines_removed": a.lines.map(|l| l.1),
        "by_hooks": a.record.by_hooks,
    })
}

fn untracked_json(u: &UntrackedEffect) -> serde_json::Value {
    json!({
        "seq": u.seq,
        "command": u.command,
        "path": u.item.path,
        "why": u.item.why,
        "change": u.item.change,
        "size": u.item.size,
    })
}

/// "not restorable (not tracked):" and one line per path, after the files.
fn print_untracked(untracked: &[UntrackedEffect]) {
    if untracked.is_empty() {
        return;
    }
    println!("not restorable (not tracked):");
    for u in untracked {
        let size = u.item.size.map_or_else(String::new, |s| format!(", {s}"));
        println!(
            "  {} {} by `{}` (#{}) — {}{size}",
            u.item.path,
            u.item.change.as_str(),
            u.command,
            u.seq,
            u.item.why.as_str()
        );
    }
}

pub fn changes(app: &Application, q: ChangesArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(r) => r,
        Err(e) => return e,
    };
    if let Some(path) = &q.path {
        return crate::hunks_cmd::hunks(app, run, path, q.json);
    }
    let (list, untracked) = match app
        .artifacts(run)
        .and_then(|l| Ok((l, app.untracked_effects(run)?)))
    {
        Ok(both) => both,
        Err(e) => return exit::report(&e),
    };
    if q.json {
        let all: Vec<_> = list.iter().map(artifact_json).collect();
        let untracked: Vec<_> = untracked.iter().map(untracked_json).collect();
        println!(
            "{}",
            json!({ "run_id": run, "artifacts": all, "not_tracked": untracked })
        );
        return Exit::Succeeded;
    }
    if list.is_empty() {
        println!("the run changed no files");
    }
    print_untracked(&untracked);
    for a in &list {
        let lines = a.lines.map_or_else(
            || "binary".to_owned(),
            |(add, del)| format!("+{add} -{del}"),
        );
        let by: String = a
            .record
            .by_hooks
            .iter()
            .map(|hook| format!("  (by hook `{hook}`)"))
            .collect();
        println!(
            "{:<9} {:<12} {:<9} {}{}{by}",
            a.record.change().as_str(),
            lines,
            review_name(a.record.review),
            a.record.path,
            if a.disk == DiskState::ChangedSince {
                "  (changed since the run)"
            } else {
                ""
            }
        );
    }
    Exit::Succeeded
}

/// Reverts the named files (or all not yet reverted). Every file is tried;
/// the exit code is the first failure's, after all were attempted.
pub fn revert(app: &Application, q: RevertArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(r) => r,
        Err(e) => return e,
    };
    if !q.hunks.is_empty() {
        return crate::hunks_cmd::revert_hunks(app, run, &q.paths, &q.hunks, q.force);
    }
    let paths: Vec<String> = if q.paths.is_empty() {
        match app.artifacts(run) {
            Ok(list) => list
                .into_iter()
                .filter(|a| a.record.review != Review::Reverted)
                .map(|a| a.record.path)
                .collect(),
            Err(e) => return exit::report(&e),
        }
    } else {
        q.paths
    };
    let mut outcome = Exit::Succeeded;
    for path in &paths {
        match app.revert_artifact(run, path, q.force) {
            Ok(()) => println!("reverted {path}"),
            Err(e) => {
                let code = exit::report(&e);
                if outcome == Exit::Succeeded {
                    outcome = code;
                }
            }
        }
    }
    outcome
}
