//! `bearagent changes RUN_ID PATH` (a file's hunks, numbered from 1) and
//! `bearagent revert RUN_ID PATH --hunk N…` (only those hunks).

use crate::exit::{self, Exit};
use bearagent_kernel::RunId;
use bearagent_runtime::artifacts::diff::FileDiff;
use bearagent_runtime::Application;
use serde_json::json;

pub fn hunks(app: &Application, run: RunId, path: &str, as_json: bool) -> Exit {
    let hunks = match app.artifact_diff(run, path, true) {
        Ok(FileDiff::Text { hunks, .. }) => hunks,
        Ok(FileDiff::Binary { .. }) => {
            return exit::usage(format!(
                "{path} is binary: it has no hunks (revert the whole file)"
            ))
        }
        Err(e) => return exit::report(&e),
    };
    if as_json {
        let all: Vec<_> = hunks
            .iter()
            .enumerate()
            .map(|(i, h)| {
                json!({
                    "index": i + 1,
                    "old_start": h.old_start,
                    "old_lines": h.old_len,
                    "new_start": h.new_start,
                    "new_lines": h.new_len,
                    "diff": h.unified(),
                })
            })
            .collect();
        println!("{}", json!({ "run_id": run, "path": path, "hunks": all }));
        return Exit::Succeeded;
    }
    if hunks.is_empty() {
        println!("{path}: no change left to review");
    }
    for (i, h) in hunks.iter().enumerate() {
        print!("hunk {}\n{}", i + 1, h.unified());
    }
    Exit::Succeeded
}

pub fn revert_hunks(
    app: &Application,
    run: RunId,
    paths: &[String],
    hunks: &[u32],
    force: bool,
) -> Exit {
    let [path] = paths else {
        return exit::usage("--hunk goes with exactly one file: revert RUN_ID PATH --hunk N");
    };
    match app.revert_hunks(run, path, hunks, force) {
        Ok(()) => {
            let numbers: Vec<String> = hunks.iter().map(u32::to_string).collect();
            println!("reverted hunk {} of {path}", numbers.join(", "));
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}
