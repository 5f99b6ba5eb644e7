//! Typed events pushed to the window.

use crate::dto::WorkspaceView;
use serde::{Deserialize, Serialize};

/// The current workspace changed (from the dialog or a path).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct WorkspaceOpened {
    pub workspace: WorkspaceView,
}
