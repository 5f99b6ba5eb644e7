//! Moves the application's live bus into the feed the window pulls from
//! (`next_live_updates`), and raises desktop notifications on the way.

use crate::events::{
    CommandOutputPushed, LiveUpdate, ModelTextDiscarded, ModelTextPushed, RunAborted,
    RunEventPushed,
};
use bearagent_runtime::{next_batch, Application, BatchWindow, LiveEvent, LiveFeed};
use std::sync::Arc;
use tauri::AppHandle;

/// Updates kept for a window that is not asking (busy, or reloading);
/// past it the oldest go and the window pages the store instead.
pub const FEED_CAPACITY: usize = 8192;

pub fn forward(app: Arc<Application>, handle: AppHandle, feed: Arc<LiveFeed<LiveEvent>>) {
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
            feed.push(batch.events);
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
