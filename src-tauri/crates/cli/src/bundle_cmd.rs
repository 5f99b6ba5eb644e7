//! `bearagent export RUN_ID --bundle FILE` (or the JSON + Markdown report
//! into `--dir`), and `bearagent import FILE`: a run handed to someone else
//! as one file, and added to this store as a read-only run.

use crate::args::{ExportArgs, ImportArgs};
use crate::exit::{self, Exit};
use crate::query_cmd::parse_run;
use bearagent_kernel::RunId;
use bearagent_runtime::bundle::{ExportOptions, Redaction};
use bearagent_runtime::Application;
use serde_json::json;
use std::path::Path;

pub fn export(app: &Application, q: ExportArgs) -> Exit {
    let run_id = match parse_run(&q.run_id) {
        Ok(id) => id,
        Err(e) => return e,
    };
    if let Some(file) = &q.bundle {
        return bundle(app, run_id, file, &q);
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

fn bundle(app: &Application, run_id: RunId, file: &str, q: &ExportArgs) -> Exit {
    let options = ExportOptions {
        include_secrets: q.include_secrets,
    };
    if options.include_secrets {
        eprintln!(
            "warning: --include-secrets: the bundle keeps secret values in clear \
             (keys, what .env files held, tokens); share it only with whom may see them"
        );
    }
    let manifest = match app.export_bundle(run_id, Path::new(file), options) {
        Ok(manifest) => manifest,
        Err(e) => return exit::report(&e),
    };
    if q.json {
        println!(
            "{}",
            json!({"bundle": file, "runs": manifest.runs,
            "withheld_blobs": manifest.withheld_blobs,
            "redacted": manifest.redacted(),
            "redactions": manifest.redactions,
            "include_secrets": options.include_secrets})
        );
        return Exit::Succeeded;
    }
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
    if !options.include_secrets {
        println!("  {}", redacted_line(&manifest.redactions));
    }
    Exit::Succeeded
}

/// "N values redacted (kind, kind…)".
fn redacted_line(redactions: &[Redaction]) -> String {
    let total: usize = redactions.iter().map(|r| r.count).sum();
    if total == 0 {
        return "0 values redacted".into();
    }
    let kinds: Vec<String> = redactions
        .iter()
        .map(|r| format!("{} {}", r.count, r.kind))
        .collect();
    format!("{total} values redacted ({})", kinds.join(", "))
}

pub fn import(app: &Application, q: ImportArgs) -> Exit {
    match app.import_bundle(Path::new(&q.file)) {
        Ok(report) => {
            let redacted: usize = report.redactions.iter().map(|r| r.count).sum();
            if q.json {
                let added: Vec<String> = report.added.iter().map(ToString::to_string).collect();
                println!(
                    "{}",
                    json!({"run_id": report.run_id.to_string(), "added": added,
                    "blobs": report.blobs, "redacted": redacted,
                    "redactions": report.redactions})
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
                if redacted > 0 {
                    println!("  {}", redacted_line(&report.redactions));
                }
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}
