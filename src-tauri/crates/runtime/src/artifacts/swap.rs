//! One file's review change, checked and ready: what goes there, what it
//! replaces (saved first), and the events around it — the intent before
//! the disk changes, the outcome after.

use crate::AppError;
use bearagent_kernel::{ContentHash, EventPayload, EventSeq, ReviewAction};
use std::path::{Path, PathBuf};

/// What a review does to one file, and for a rewind the event it goes
/// back to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub action: ReviewAction,
    pub rewound_to: Option<EventSeq>,
}

impl From<ReviewAction> for Step {
    fn from(action: ReviewAction) -> Self {
        Self {
            action,
            rewound_to: None,
        }
    }
}

/// A revert or re-apply, checked and ready: the file, what goes there,
/// and what it replaces (saved).
pub(crate) struct Swap {
    path: PathBuf,
    content: Option<Vec<u8>>,
    replaced: Option<ContentHash>,
    forced: bool,
    /// The permission bits to put back (None: the file keeps its own).
    mode: Option<u32>,
}

/// A review change that did not take effect, and why.
pub(crate) fn abandoned(rel: &str, reason: String) -> EventPayload {
    EventPayload::ReviewAbandoned {
        path: rel.to_owned(),
        reason,
    }
}

impl Swap {
    /// The intent recorded before the disk changes.
    pub(crate) fn intent(
        &self,
        rel: &str,
        step: Step,
        told: &[(u32, String)],
        restored: &Option<ContentHash>,
    ) -> EventPayload {
        EventPayload::ReviewIntended {
            path: rel.to_owned(),
            action: step.action,
            restored_hash: restored.clone(),
            replaced_hash: self.replaced.clone(),
            forced: self.forced,
            hunks: told.iter().map(|h| h.0).filter(|n| *n > 0).collect(),
            rewound_to: step.rewound_to,
        }
    }

    /// Changes the file (atomically: on failure it holds what it held).
    pub(crate) fn put(&self) -> Result<(), AppError> {
        put_file(&self.path, self.content.as_deref(), self.mode, true)
    }

    /// [`Swap::put`] without waiting for the disk (one sync follows the
    /// batch).
    pub(crate) fn put_unsynced(&self) -> Result<(), AppError> {
        put_file(&self.path, self.content.as_deref(), self.mode, false)
    }

    pub(crate) fn new(
        path: PathBuf,
        content: Option<Vec<u8>>,
        replaced: Option<ContentHash>,
        forced: bool,
    ) -> Self {
        Self {
            path,
            content,
            replaced,
            forced,
            mode: None,
        }
    }

    /// The file goes.
    pub(crate) fn removes(&self) -> bool {
        self.content.is_none()
    }

    /// The file on disk.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The outcome recorded once the file holds `restored`.
    pub(crate) fn done(
        self,
        rel: &str,
        step: Step,
        told: &[(u32, String)],
        restored: &Option<ContentHash>,
    ) -> EventPayload {
        ReviewDone {
            action: step.action,
            rewound_to: step.rewound_to,
            hunks: told.iter().map(|h| h.0).filter(|n| *n > 0).collect(),
            diff: told.iter().map(|h| h.1.as_str()).collect(),
            restored: restored.clone(),
            replaced: self.replaced,
            forced: self.forced,
        }
        .event(rel)
    }

    /// Puts `mode` back with the content (when it is known).
    pub(crate) fn with_mode(self, mode: Option<u32>) -> Self {
        Self {
            mode: mode.or(self.mode),
            ..self
        }
    }

    /// The file holds something else than expected (planned with `force`).
    pub(crate) fn forced(&self) -> bool {
        self.forced
    }
}

/// Puts `content` (or removes the file for None) atomically, with
/// `mode` when one is given.
fn put_file(
    path: &std::path::Path,
    content: Option<&[u8]>,
    mode: Option<u32>,
    sync: bool,
) -> Result<(), AppError> {
    let io = |source| AppError::Io {
        path: path.to_path_buf(),
        source,
    };
    match content {
        None => bearagent_tools::remove_file(path, sync).map_err(io),
        // The file keeps its mode (a new one gets the umask's) unless the
        // record says which it had; content and mode land in one rename,
        // so settling after a crash by content settles the mode too.
        Some(bytes) => bearagent_tools::replace_file_with_mode(path, bytes, mode, sync).map_err(io),
    }
}

/// A review action that took effect: what it did, for its outcome event.
pub(crate) struct ReviewDone {
    pub(crate) action: ReviewAction,
    pub(crate) rewound_to: Option<EventSeq>,
    pub(crate) hunks: Vec<u32>,
    /// The reverted hunks' text (hunk reverts only), or an edit's diff.
    pub(crate) diff: String,
    pub(crate) restored: Option<ContentHash>,
    pub(crate) replaced: Option<ContentHash>,
    pub(crate) forced: bool,
}

impl ReviewDone {
    pub(crate) fn event(self, rel: &str) -> EventPayload {
        let path = rel.to_owned();
        match self.action {
            ReviewAction::Revert => EventPayload::ArtifactReverted {
                path,
                restored_hash: self.restored,
                replaced_hash: self.replaced,
                forced: self.forced,
            },
            ReviewAction::Reapply => EventPayload::ArtifactReapplied {
                path,
                restored_hash: self.restored,
                replaced_hash: self.replaced,
            },
            ReviewAction::RevertHunks => EventPayload::ArtifactHunksReverted {
                path,
                hunks: self.hunks,
                diff: self.diff,
                restored_hash: self.restored,
                replaced_hash: self.replaced,
            },
            ReviewAction::Edit => EventPayload::ArtifactEdited {
                path,
                diff: self.diff,
                restored_hash: self.restored,
                replaced_hash: self.replaced,
            },
            ReviewAction::Rewind | ReviewAction::Redo => EventPayload::ArtifactRewound {
                path,
                to: self.rewound_to.unwrap_or_default(),
                redo: self.action == ReviewAction::Redo,
                restored_hash: self.restored,
                replaced_hash: self.replaced,
                forced: self.forced,
            },
        }
    }
}
