//! `bearagent sandbox [--profile NAME] [--json]`: what a command of that
//! profile would see of this machine, so a user can check it without
//! reading the README.

use crate::exit::{self, Exit};
use bearagent_runtime::Application;
use bearagent_tools::sandbox::home::CREDENTIALS;
use bearagent_tools::sandbox::view::{PathDrop, SandboxView};
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
    print_details(&view);
    Exit::Succeeded
}

/// The lines under the headline: folders, configuration, PATH, switches.
fn print_details(view: &SandboxView) {
    let list = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let path: Vec<PathBuf> = view.path.iter().map(|e| e.path.clone()).collect();
    let dropped: Vec<String> = view
        .path_dropped
        .iter()
        .map(|d| format!("{} ({})", d.path.display(), drop_reason(d.reason)))
        .collect();
    let tool_homes: Vec<String> = view
        .tool_homes
        .iter()
        .map(|(name, dir)| format!("{name}={}", dir.display()))
        .collect();
    let lines = [
        ("read-only from your home", list(&view.readable)),
        ("writable package caches", list(&view.writable)),
        ("configuration passed (read-only)", list(&view.config)),
        ("withheld (looks like a credential)", list(&view.withheld)),
        ("hidden inside bound folders", list(&view.hidden)),
        ("toolchain homes passed in", tool_homes.join(", ")),
        ("PATH", list(&path)),
        ("left out of PATH", dropped.join(", ")),
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
}

/// Why a PATH entry was left out, in a few words.
fn drop_reason(reason: PathDrop) -> &'static str {
    match reason {
        PathDrop::NotAbsolute => "not an absolute path",
        PathDrop::HiddenFolder => "inside a folder hidden from commands",
        PathDrop::HomeNotBound => "in your home, outside the folders passed in",
    }
}
