//! Forwards the application's live bus to the window as typed updates,
//! a batch per short window (see `bearagent_runtime::live::next_batch`).

use crate::events::{
    CommandOutputPushed, LiveUpdate, LiveUpdates, ModelTextDiscarded, ModelTextPushed, RunAborted,
    RunEventPushed,
};
use bearagent_runtime::{next_batch, Application, BatchWindow, LiveEvent};
use std::sync::Arc;
use tauri::AppHandle;
use tauri_specta::Event;

pub fn forward(app: Arc<Application>, handle: AppHandle) {
    let mut rx = app.subscribe();
    tauri::async_runtime::spawn(async move {
        while let Some(batch) = next_batch(&mut rx, BatchWindow::default()).await {
            // The window notices the gap in seqs and pages the store.
            if batch.skipped > 0 {
                tracing::warn!(skipped = batch.skipped, "live updates lagged");
            }
            if batch.events.is_empty() {
                continue;
            }
            crate::notify::notify_batch(&app, &handle, &batch.events);
            let updates = LiveUpdates {
                updates: batch.events.into_iter().map(update).collect(),
            };
            if let Err(e) = updates.emit(&handle) {
                tracing::warn!(error = %e, "could not push live updates");
            }
        }
    });
}

pub(crate) fn update(event: LiveEvent) -> LiveUpdate {
    match event {
        LiveEvent::Committed(event) => LiveUpdate::RunEvent(RunEventPushed {
            run_id: event.run_id.to_string(),
            event: Box::new((*event).clone()),
        }),
        LiveEvent::TextDelta {
            run_id,
            model_call,
            text,
        } => LiveUpdate::ModelText(ModelTextPushed {
            run_id: run_id.to_string(),
            model_call: model_call.get(),
            text,
        }),
        LiveEvent::TextDiscarded { run_id, model_call } => {
            LiveUpdate::ModelTextDiscarded(ModelTextDiscarded {
                run_id: run_id.to_string(),
                model_call: model_call.get(),
            })
        }
        LiveEvent::RunAborted { run_id, message } => LiveUpdate::RunAborted(RunAborted {
            run_id: run_id.to_string(),
            message,
        }),
        LiveEvent::CommandOutput {
            run_id,
            call_id,
            text,
        } => LiveUpdate::CommandOutput(CommandOutputPushed {
            run_id: run_id.to_string(),
            call_id: call_id.to_string(),
            text,
        }),
    }
}
