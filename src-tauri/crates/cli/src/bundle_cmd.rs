//! `bearagent export RUN_ID --bundle FILE` (or the JSON + Markdown report
//! into `--dir`), and `bearagent import FILE`: a run handed to someone else
//! as one file, and added to this store as a read-only run.

use crate::args::{ExportArgs, ImportArgs};
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_runtime::Application;
use serde_json::json;
use std::path::Path;

pub fn export(app: &Application, q: ExportArgs) -> Exit {
    let run_id = match parse_run(&q.run_id) {
        Ok(id) => id,
        Err(e) => return e,
    };
    if let Some(file) = &q.bundle {
        return match app.export_bundle(run_id, Path::new(file)) {
            Ok(manifest) => {
                if q.json {
                    println!(
                        "{}",
                        json!({"bundle": file, "runs": manifest.runs,
                        "withheld_blobs": manifest.withheld_blobs})
                    );
                } else {
                    println!("wrote {file}: run {run_id}");
                    if manifest.runs.len() > 1 {
                        println!("  with the {} runs it continues", manifest.runs.len() - 1);
                    }
                    if !manifest.withheld_blobs.is_empty() {
                        println!(
                            "  {} version(s) of files that look like secrets were left out",
                            manifest.withheld_blobs.len()
                        );
                    }
                }
                Exit::Succeeded
            }
            Err(e) => exit::report(&e),
        };
    }
    let dir = q.dir.as_deref().unwrap_or(".");
    match app.export_run(run_id, Path::new(dir)) {
        Ok(exported) => {
            if q.json {
                println!(
                    "{}",
                    json!({"json": exported.json, "markdown": exported.markdown})
                );
            } else {
                println!(
                    "wrote {}\nwrote {}",
                    exported.json.display(),
                    exported.markdown.display()
                );
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

pub fn import(app: &Application, q: ImportArgs) -> Exit {
    match app.import_bundle(Path::new(&q.file)) {
        Ok(report) => {
            if q.json {
                let added: Vec<String> = report.added.iter().map(ToString::to_string).collect();
                println!(
                    "{}",
                    json!({"run_id": report.run_id.to_string(), "added": added,
                    "blobs": report.blobs})
                );
            } else {
                println!(
                    "imported run {} ({} run(s) added, {} blob(s)); read-only here — \
                     `bearagent inspect {}`, or fork it with `run --fork {} --at SEQ --workspace DIR`",
                    report.run_id,
                    report.added.len(),
                    report.blobs,
                    report.run_id,
                    report.run_id
                );
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}
