//! The BearAgent desktop shell: the only code that links Tauri. Commands are
//! thin delegations to `bearagent_runtime::Application`; this crate holds
//! no logic of its own.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod commands;
mod dto;
mod events;
mod idle_heap;
mod live;
mod notify;
#[cfg(test)]
mod packaging_tests;
#[cfg(test)]
mod scenarios;
mod state;
mod system_font;
mod web_process;
mod webkit_env;

use bearagent_runtime::{home, logging, Application, SystemClock};
use state::AppState;
use std::process::ExitCode;
use std::sync::Arc;
use tauri::Manager;
use tauri_specta::{collect_commands, collect_events, Builder};

/// Every IPC command, named once. The bindings' builder collects their
/// types (`collect_commands`); the app registers only their handler
/// (`tauri::generate_handler`): collecting the types of every command's
/// arguments and results at each start touched 3.7 MB of the binary's code
/// and heap for nothing at run time (measured with /proc/self/statm,
/// issue 27).
macro_rules! ipc_commands {
    ($($with:tt)+) => {
        $($with)+![
            commands::workspace::open_workspace,
            commands::workspace::choose_workspace,
            commands::workspace::current_workspace,
            commands::workspace::list_recent_workspaces,
            commands::workspace::list_runs,
            commands::runs::start_run,
            commands::live::next_live_updates,
            commands::runs::start_demo_run,
            commands::runs::cancel_run,
            commands::runs::command_output,
            commands::runs::decide_approval,
            commands::runs::search_runs,
            commands::runs::helper_runs,
            commands::runs::get_run,
            commands::runs::list_events,
            commands::runs::model_context,
            commands::runs::active_runs,
            commands::runs::quit_app,
            commands::page::page_ready,
            commands::page::page_idle,
            commands::threads::reply_to_run,
            commands::threads::get_thread,
            commands::threads::compact_run,
            commands::threads::event_text,
            commands::threads::run_image,
            commands::worktrees::list_worktrees,
            commands::worktrees::apply_worktree,
            commands::worktrees::undo_apply,
            commands::worktrees::discard_worktree,
            commands::worktrees::prune_worktrees,
            commands::settings::get_settings,
            commands::settings::save_provider,
            commands::settings::delete_provider,
            commands::settings::set_provider_key,
            commands::settings::test_provider,
            commands::settings::save_profile,
            commands::settings::delete_profile,
            commands::settings::sandbox_view,
            commands::settings::remembered_rules,
            commands::settings::forget_rule,
            commands::local::detect_local_providers,
            commands::local::add_local_provider,
            commands::hooks::project_hooks,
            commands::hooks::trust_project_hooks,
            commands::hooks::untrust_project_hooks,
            commands::bundles::open_run_file,
            commands::bundles::import_run_file,
            commands::bundles::opened_run_file,
            commands::bundles::pick_bundle_file,
            commands::bundles::export_run_bundle,
            commands::mcp::save_mcp_server,
            commands::mcp::delete_mcp_server,
            commands::mcp::set_mcp_secret,
            commands::mcp::test_mcp_server,
            commands::artifacts::list_artifacts,
            commands::artifacts::list_untracked,
            commands::artifacts::artifact_diff,
            commands::artifacts::pending_change,
            commands::artifacts::keep_artifact,
            commands::artifacts::revert_artifact,
            commands::artifacts::revert_hunks,
            commands::artifacts::keep_hunks,
            commands::artifacts::reapply_artifact,
            commands::artifacts::export_run,
            commands::review::rewind_run,
            commands::review::redo_rewind,
            commands::review::edit_base,
            commands::review::keep_edited,
        ]
    };
}

/// The typed events: mounted by the app, exported with the bindings.
fn with_events(builder: Builder<tauri::Wry>) -> Builder<tauri::Wry> {
    builder.events(collect_events![
        events::WorkspaceOpened,
        events::QuitRequested
    ])
}

/// The typed IPC surface; `ui/src/bindings.ts` is generated from it.
pub fn specta_builder() -> Builder<tauri::Wry> {
    with_events(Builder::<tauri::Wry>::new().commands(ipc_commands!(collect_commands)))
        // Values the UI must not copy by hand.
        .constant("DEMO_PROVIDER", bearagent_runtime::demo::DEMO_PROVIDER)
        // Token counts are u64 in Rust; they stay far below 2^53.
        .dangerously_cast_bigints_to_number()
        // Every IPC type has one shape in both directions.
        .disable_serde_phases()
}

/// Exports the TypeScript bindings to `path`.
pub fn export_bindings(path: &std::path::Path) -> Result<(), String> {
    specta_builder()
        .export(specta_typescript::Typescript::default(), path)
        .map_err(|e| e.to_string())
}

pub fn run() -> ExitCode {
    webkit_env::choose();
    let home = home::resolve();
    let _log_guard = home
        .as_ref()
        .ok()
        .and_then(|h| logging::init(h, "bearagent-desktop"));
    // A database we cannot open (newer schema, corrupt file) must not crash
    // the app: the window opens and every command reports the error.
    let app = home
        .and_then(|h| {
            let config = home::config_path(&h);
            let keys = Arc::new(bearagent_runtime::config::OsKeychain);
            Application::open_with(&h, &config, Arc::new(SystemClock), keys)
        })
        .map(Arc::new);
    if let Err(e) = &app {
        tracing::error!(error = %e, "cannot open BearAgent's data");
    }
    let live_app = app.as_ref().ok().cloned();
    let close_app = live_app.clone();
    let state = AppState::new(app).with_opened_file(commands::bundles::bundle_argument());
    let feed = state.live();
    let events = with_events(Builder::new());
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .manage(state)
        .manage(idle_heap::HeapKeeper::default())
        .invoke_handler(ipc_commands!(tauri::generate_handler))
        .setup(move |app| {
            events.mount_events(app);
            let recycler = web_process::Recycler::from_env();
            web_process::watch(app, &recycler);
            system_font::adopt(app);
            app.manage(recycler);
            if let Some(application) = live_app {
                // Runs of other BearAgent processes (CLI, another window)
                // show live too.
                if let Err(e) = application.follow_other_processes() {
                    tracing::warn!(error = %e, "other processes' runs will not update live");
                }
                live::forward(application, app.handle().clone(), feed);
            }
            Ok(())
        })
        .on_window_event(move |window, event| {
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                let active = close_app
                    .as_ref()
                    .map(|a| a.active_runs())
                    .unwrap_or_default();
                if !active.is_empty() {
                    // Ask first; the window calls quit_app if the user agrees.
                    api.prevent_close();
                    let ask = events::QuitRequested {
                        active_runs: active.iter().map(ToString::to_string).collect(),
                    };
                    if let Err(e) = tauri_specta::Event::emit(&ask, window) {
                        tracing::warn!(error = %e, "could not ask before quitting");
                    }
                }
            }
        })
        .run(tauri::generate_context!());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "the desktop app failed");
            eprintln!("BearAgent failed to start: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod bindings_tests {
    /// The committed bindings must be what the Rust side generates. Set
    /// `BEARAGENT_UPDATE_BINDINGS=1` to rewrite them.
    #[test]
    fn committed_bindings_match_the_generated_ones() {
        let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings.ts");
        if std::env::var_os("BEARAGENT_UPDATE_BINDINGS").is_some() {
            super::export_bindings(&committed).unwrap();
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("bindings.ts");
        super::export_bindings(&fresh).unwrap();
        let fresh = std::fs::read_to_string(fresh).unwrap();
        let current = std::fs::read_to_string(&committed).unwrap_or_default();
        assert!(
            fresh == current,
            "ui/src/bindings.ts is stale: run `BEARAGENT_UPDATE_BINDINGS=1 cargo test --workspace bindings` and commit it"
        );
    }
}
