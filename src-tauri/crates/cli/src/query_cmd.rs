use crate::args::{EventsArgs, InspectArgs, RunsArgs};
use crate::exit::{self, Exit};
use crate::render;
use crate::timeline::Timeline;
use bearagent_kernel::{EventSeq, RunId};
use bearagent_runtime::Application;

pub(crate) fn parse_run(id: &str) -> Result<RunId, Exit> {
    id.parse().map_err(exit::usage)
}

pub fn runs(app: &Application, q: RunsArgs) -> Exit {
    let workspace = match &q.workspace {
        None => None,
        Some(path) => {
            let shown = path.display().to_string();
            let canonical = path
                .canonicalize()
                .map(|p| p.display().to_string())
                .unwrap_or(shown);
            match app.recent_workspace_by_path(&canonical) {
                Ok(Some(w)) => Some(w.id),
                Ok(None) => {
                    if !q.json {
                        println!("no runs: {canonical} has never been opened");
                    }
                    return Exit::Succeeded;
                }
                Err(e) => return exit::report(&e),
            }
        }
    };
    let filter = bearagent_runtime::RunFilter {
        workspace_id: workspace,
        limit: Some(q.limit),
        imported_only: q.imported,
        ..Default::default()
    };
    match app.search_runs(filter) {
        Ok(runs) => {
            for (depth, parent, i) in crate::run_tree::grouped(app, &runs) {
                if let Some(r) = runs.get(i) {
                    println!("{}", crate::run_tree::runs_line(r, depth, q.json, parent));
                }
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

pub fn inspect(app: &Application, q: InspectArgs) -> Exit {
    let run_id = match parse_run(&q.run_id) {
        Ok(id) => id,
        Err(code) => return code,
    };
    match app.get_run(run_id) {
        Ok(p) if q.json => match serde_json::to_string_pretty(&p) {
            Ok(s) => {
                println!("{s}");
                Exit::Succeeded
            }
            Err(e) => {
                eprintln!("bearagent: {e}");
                Exit::Internal
            }
        },
        Ok(p) => {
            println!("{}", render::projection_text(&p));
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

pub fn events(app: &Application, q: EventsArgs) -> Exit {
    let run_id = match parse_run(&q.run_id) {
        Ok(id) => id,
        Err(code) => return code,
    };
    match app.list_events(run_id, EventSeq(q.after), q.limit) {
        Ok(events) => {
            // Times count from the run's first event, wherever the page starts.
            let started = match app.list_events(run_id, EventSeq(0), 1) {
                Ok(first) => first.first().map(|e| e.at),
                Err(e) => return exit::report(&e),
            };
            if q.children {
                return crate::run_tree::print_with_children(app, run_id, &events, started, q.json);
            }
            let mut timeline = Timeline::new(started);
            for e in &events {
                if q.json {
                    println!("{}", render::event_json(e));
                } else {
                    println!("{}", timeline.line(e));
                }
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}
