//! `bearagent sandbox [--profile NAME] [--json]`: what a command of that
//! profile would see of this machine, so a user can check it without
//! reading the README.

use crate::exit::{self, Exit};
use bearagent_runtime::Application;
use bearagent_tools::sandbox::home::CREDENTIALS;
use serde_json::json;
use std::path::PathBuf;

pub fn show(app: &Application, profile: &str, as_json: bool) -> Exit {
    let (settings, view) = match app.command_view(profile) {
        Ok(found) => found,
        Err(e) => return exit::report(&e),
    };
    if as_json {
        let out = json!({
            "profile": profile,
            "sandboxed": settings.sandbox,
            "network": settings.network,
            "view": view,
            "credentials_denylist": CREDENTIALS,
        });
        println!("{out}");
        return Exit::Succeeded;
    }
    let Some(view) = view else {
        println!(
            "profile {profile}: commands run WITHOUT a sandbox{} — they see and may change everything your user can",
            if settings.sandbox { " (none on this platform)" } else { " (sandbox = \"off\")" }
        );
        return Exit::Succeeded;
    };
    let network = if view.network {
        "network on (package caches writable)"
    } else {
        "network off (package managers told to work offline)"
    };
    println!("profile {profile}: commands run sandboxed, {network}");
    let list = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lines = [
        ("read-only from your home", list(&view.readable)),
        ("writable package caches", list(&view.writable)),
        ("configuration passed (read-only)", list(&view.config)),
        ("withheld (looks like a credential)", list(&view.withheld)),
        ("hidden inside bound folders", list(&view.hidden)),
        ("PATH", list(&view.path)),
        ("left out of PATH", list(&view.path_dropped)),
    ];
    for (what, value) in lines {
        println!(
            "  {what}: {}",
            if value.is_empty() { "none" } else { &value }
        );
    }
    let offline: Vec<String> = view
        .offline_env
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    if !offline.is_empty() {
        println!("  offline switches: {}", offline.join(" "));
    }
    println!("  never readable: {}", CREDENTIALS.join(", "));
    Exit::Succeeded
}
