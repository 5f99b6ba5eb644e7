//! Desktop notifications for runs that need the user while the window is
//! in the background: an approval waits, or a run ended. Sent by the shell
//! (the system's notification service), since the webview may not.

use bearagent_kernel::{EventEnvelope, EventPayload, RunStatus};
use bearagent_runtime::{Application, LiveEvent};
use tauri::{AppHandle, Manager};
use tauri_plugin_notification::NotificationExt;

/// Notifies about the events of a batch that need the user, unless the
/// main window has the focus (the user is looking already).
pub fn notify_batch(app: &Application, handle: &AppHandle, events: &[LiveEvent]) {
    let focused = handle
        .get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false);
    if focused {
        return;
    }
    for event in events {
        if let LiveEvent::Committed(e) = event {
            if let Some((title, body)) = message(app, e) {
                if let Err(err) = handle
                    .notification()
                    .builder()
                    .title(title)
                    .body(body)
                    .show()
                {
                    tracing::debug!(error = %err, "no desktop notification");
                }
            }
        }
    }
}

/// The notification an event calls for, if any.
fn message(app: &Application, e: &EventEnvelope) -> Option<(String, String)> {
    let goal = || {
        app.get_run(e.run_id)
            .map(|p| p.goal.chars().take(80).collect::<String>())
            .unwrap_or_default()
    };
    match &e.payload {
        EventPayload::ApprovalRequested { summary, .. } => Some((
            "BearAgent: approval needed".into(),
            format!("{}\n{summary}", goal()),
        )),
        payload if payload.is_terminal() => {
            let status = app.get_run(e.run_id).ok()?.status;
            let word = match status {
                RunStatus::Succeeded => "finished",
                RunStatus::Failed { .. } => "failed",
                RunStatus::Cancelled => "was cancelled",
                RunStatus::BudgetExhausted { .. } => "ran out of budget",
                RunStatus::Interrupted => "was interrupted",
                RunStatus::Created | RunStatus::Running | RunStatus::AwaitingApproval => {
                    return None
                }
            };
            Some((format!("BearAgent: run {word}"), goal()))
        }
        _ => None,
    }
}
