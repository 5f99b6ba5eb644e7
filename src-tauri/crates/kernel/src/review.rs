//! What a review of a run's files does to one file.

use serde::{Deserialize, Serialize};

/// What a review action puts back.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewAction {
    /// The version from before the run.
    Revert,
    /// The run's version, undoing a revert.
    Reapply,
    /// The run's version without some of its hunks.
    RevertHunks,
    /// The run's version at an earlier event (a rewind).
    Rewind,
    /// What a rewind replaced (undoing it).
    Redo,
    /// The user's own edit of the run's version (kept).
    Edit,
}
