//! `bearagent rewind RUN_ID --to SEQ` (every file the run changed after
//! event SEQ back to how it was then) and `--redo` (undo the last rewind).

use crate::args::RewindArgs;
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_kernel::EventSeq;
use bearagent_runtime::artifacts::rewind::RewindReport;
use bearagent_runtime::Application;
use serde_json::json;

pub fn rewind(app: &Application, q: RewindArgs) -> Exit {
    let run = match parse_run(&q.run_id) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let done = match (q.redo, q.to) {
        (true, _) => app.redo_rewind(run, q.force),
        (false, Some(to)) => app.rewind(run, EventSeq(to), q.force),
        (false, None) => return exit::usage("rewind needs --to SEQ or --redo"),
    };
    match done {
        Ok(report) if q.json => {
            println!("{}", report_json(&report));
            Exit::Succeeded
        }
        Ok(report) => {
            print_report(&report, &q.run_id);
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

fn report_json(r: &RewindReport) -> serde_json::Value {
    let files: Vec<_> = r
        .files
        .iter()
        .map(|f| {
            json!({
                "path": f.path,
                "action": if f.now.is_none() { "removed" } else { "restored" },
                "hash": f.now,
                "forced": f.forced,
            })
        })
        .collect();
    let later: Vec<_> = r
        .later_runs
        .iter()
        .map(|(run, files)| json!({"run_id": run, "files": files}))
        .collect();
    json!({"to": r.to, "redo": r.redo, "files": files, "later_runs": later})
}

fn print_report(r: &RewindReport, run: &str) {
    if r.files.is_empty() {
        println!(
            "nothing to rewind: every file the run changed after event {} already holds what it held then",
            r.to.0
        );
        return;
    }
    for f in &r.files {
        let what = if f.now.is_none() {
            "removed "
        } else {
            "restored"
        };
        let forced = if f.forced {
            " (it had changed since; what it held is kept)"
        } else {
            ""
        };
        println!("{what} {}{forced}", f.path);
    }
    for (run, files) in &r.later_runs {
        println!(
            "first rewound run {run}, which continues this one, to its start ({files} file(s))"
        );
    }
    let n = r.files.len();
    let files = if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    };
    if r.redo {
        println!("redid the rewind to event {}: {files} as before it", r.to.0);
    } else {
        println!(
            "rewound {files} to event {}; `bearagent rewind {run} --redo` undoes it",
            r.to.0
        );
    }
}
