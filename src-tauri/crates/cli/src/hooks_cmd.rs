//! `bearagent hooks`: the user's hooks and the workspace's project hooks
//! with their trust state; `hooks trust` trusts the project file as it is
//! now (printing each command it trusts), `hooks untrust` takes it back.

use crate::args::HooksArgs;
use crate::exit::{self, Exit};
use bearagent_runtime::hooks::{ProjectHooks, PROJECT_HOOKS_FILE};
use bearagent_runtime::Application;
use serde_json::json;

pub fn hooks(app: &Application, q: HooksArgs) -> Exit {
    let workspace = match workspace_dir(q.workspace.as_deref()) {
        Ok(w) => w,
        Err(e) => return exit::usage(e),
    };
    match q.action.as_deref() {
        Some("trust") => trust(app, &workspace, q.sha256.as_deref(), q.json),
        Some("untrust") => match app.untrust_project_hooks(&workspace) {
            Ok(true) => {
                println!("project hooks of {workspace} are no longer trusted");
                Exit::Succeeded
            }
            Ok(false) => {
                println!("project hooks of {workspace} were not trusted");
                Exit::Succeeded
            }
            Err(e) => exit::report(&e),
        },
        _ => list(app, &workspace, q.json),
    }
}

/// The folder named, or the current one, as an absolute path.
fn workspace_dir(named: Option<&str>) -> Result<String, String> {
    let dir = match named {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?,
    };
    let dir = std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.display().to_string())
}

fn trust(app: &Application, workspace: &str, pinned: Option<&str>, json_out: bool) -> Exit {
    let shown = match app.project_hooks(workspace) {
        Ok(Some(shown)) => shown,
        Ok(None) => {
            return exit::usage(format!("{workspace} has no {PROJECT_HOOKS_FILE} to trust"))
        }
        Err(e) => return exit::report(&e),
    };
    // Trust what this very listing shows (or the hash the user pinned).
    let sha256 = pinned.unwrap_or(&shown.sha256);
    match app.trust_project_hooks(workspace, sha256) {
        Ok(trusted) => {
            if json_out {
                println!("{}", project_json(&trusted));
            } else {
                println!("trusted {} (sha256 {}):", trusted.file, trusted.sha256);
                print_project_commands(&trusted);
                println!("pinned: {}", trusted.pinned.join(", "));
                println!(
                    "they run from the next run on; editing any pinned file (or adding one to .bearagent/) untrusts them"
                );
            }
            Exit::Succeeded
        }
        Err(e) => exit::report(&e),
    }
}

fn list(app: &Application, workspace: &str, json_out: bool) -> Exit {
    let user = match app.config() {
        Ok(config) => config.hooks,
        Err(e) => return exit::report(&e),
    };
    let project = match app.project_hooks(workspace) {
        Ok(p) => p,
        Err(e) => return exit::report(&e),
    };
    if json_out {
        let user: Vec<_> = user
            .iter()
            .flat_map(|(event, entries)| {
                entries.iter().map(move |e| {
                    json!({"event": event, "matcher": e.matcher, "command": e.command,
                           "timeout_secs": e.timeout_secs})
                })
            })
            .collect();
        let project = project.as_ref().map(project_json);
        println!("{}", json!({"user": user, "project": project}));
        return Exit::Succeeded;
    }
    println!("user hooks ({}):", app.config_path().display());
    if user.values().all(Vec::is_empty) {
        println!("  none");
    }
    for (event, entries) in &user {
        for e in entries {
            println!("  {event}{}: {}", matcher(e.matcher.as_deref()), e.command);
        }
    }
    match project {
        None => println!("project hooks: none ({workspace}/{PROJECT_HOOKS_FILE} does not exist)"),
        Some(p) => {
            let state = match (&p.error, p.trusted) {
                (Some(error), _) => format!("INVALID, never runs: {error}"),
                (None, true) => "trusted".to_owned(),
                (None, false) => {
                    "NOT trusted, does not run — review it, then `bearagent hooks trust`".to_owned()
                }
            };
            println!("project hooks ({}): {state}", p.file);
            print_project_commands(&p);
        }
    }
    Exit::Succeeded
}

fn matcher(m: Option<&str>) -> String {
    m.map_or_else(String::new, |m| format!(" [{m}]"))
}

fn print_project_commands(p: &ProjectHooks) {
    for h in &p.hooks {
        println!(
            "  {}{}: {} (timeout {} s)",
            h.event,
            matcher(h.matcher.as_deref()),
            h.command,
            h.timeout_secs
        );
    }
}

fn project_json(p: &ProjectHooks) -> serde_json::Value {
    json!({"file": p.file, "sha256": p.sha256, "pinned": p.pinned, "trusted": p.trusted, "error": p.error,
           "hooks": p.hooks.iter().map(|h| json!({"event": h.event, "matcher": h.matcher,
               "command": h.command, "timeout_secs": h.timeout_secs})).collect::<Vec<_>>()})
}
