//! Forwards the application's live bus to the window as typed events.

use crate::events::{
    CommandOutputPushed, ModelTextDiscarded, ModelTextPushed, RunAborted, RunEventPushed,
};
use bearagent_runtime::{Application, LiveEvent};
use std::sync::Arc;
use tauri::AppHandle;
use tauri_specta::Event;
use tokio::sync::broadcast::error::RecvError;

pub fn forward(app: Arc<Application>, handle: AppHandle) {
    let mut rx = app.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            let result = match rx.recv().await {
                Ok(LiveEvent::Committed(event)) => RunEventPushed {
                    run_id: event.run_id.to_string(),
                    event: (*event).clone(),
                }
                .emit(&handle),
                Ok(LiveEvent::TextDelta {
                    run_id,
                    model_call,
                    text,
                }) => ModelTextPushed {
                    run_id: run_id.to_string(),
                    model_call: model_call.get(),
                    text,
                }
                .emit(&handle),
                Ok(LiveEvent::TextDiscarded { run_id, model_call }) => ModelTextDiscarded {
                    run_id: run_id.to_string(),
                    model_call: model_call.get(),
                }
                .emit(&handle),
                Ok(LiveEvent::RunAborted { run_id, message }) => RunAborted {
                    run_id: run_id.to_string(),
                    message,
                }
                .emit(&handle),
                Ok(LiveEvent::CommandOutput {
                    run_id,
                    call_id,
                    text,
                }) => CommandOutputPushed {
                    run_id: run_id.to_string(),
                    call_id: call_id.to_string(),
                    text,
                }
                .emit(&handle),
                // The window notices the gap in seqs and pages the store.
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(skipped = n, "live updates lagged");
                    Ok(())
                }
                Err(RecvError::Closed) => return,
            };
            if let Err(e) = result {
                tracing::warn!(error = %e, "could not push a live update");
            }
        }
    });
}
