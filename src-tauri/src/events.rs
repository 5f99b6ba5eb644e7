//! Typed events pushed to the window.

use crate::dto::WorkspaceView;
use serde::{Deserialize, Serialize};

/// The current workspace changed (from the dialog or a path).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct WorkspaceOpened {
    pub workspace: WorkspaceView,
}

/// Live updates of any run, in the order they happened, as the window pulls
/// them (`next_live_updates`): pulled, not pushed, because every push is a
/// script evaluation the web process keeps memory for.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LiveUpdates {
    /// What to ask with next.
    pub cursor: u64,
    /// Updates dropped before the window took them (it fell behind): the
    /// window pages the store for the gaps in run seqs.
    pub skipped: u64,
    pub updates: Vec<LiveUpdate>,
}

/// One live update; `kind` says which.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LiveUpdate {
    RunEvent(RunEventPushed),
    ModelText(ModelTextPushed),
    ModelTextDiscarded(ModelTextDiscarded),
    CommandOutput(CommandOutputPushed),
    RunAborted(RunAborted),
}

/// A committed event of any run, pushed as it happens. A window that sees
/// a gap in `seq` pages the missing events from the store.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunEventPushed {
    pub run_id: String,
    pub event: Box<bearagent_kernel::EventEnvelope>,
}

/// Model text as it streams (not an event; the completion is).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelTextPushed {
    pub run_id: String,
    /// Seq of the `ModelCallStarted` event of the call producing the text.
    pub model_call: u64,
    pub text: String,
}

/// The attempt streaming text for `model_call` failed and is retried: the
/// text shown for it so far is void (not an event; the retry is recorded).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ModelTextDiscarded {
    pub run_id: String,
    pub model_call: u64,
}

/// Output of a running command as it arrives (raw, with ANSI colours; not
/// an event: `command_finished` carries the stored output).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CommandOutputPushed {
    pub run_id: String,
    pub call_id: String,
    pub text: String,
}

/// A run's loop in this process stopped because its events could not be
/// stored (the store failed or refused an append); `message` says why.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunAborted {
    pub run_id: String,
    pub message: String,
}

/// The user tried to close the window while runs are in progress.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct QuitRequested {
    pub active_runs: Vec<String>,
}
