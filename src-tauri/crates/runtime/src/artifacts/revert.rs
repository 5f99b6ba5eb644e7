//! Keep, revert and re-apply one file of a run, without git. Every action
//! is guarded by the file's current content and recorded as an event —
//! the intent before the disk changes, the outcome after, settled from the
//! file if the process stopped between the two; a revert saves what it
//! replaces, so it can always be undone. The use cases (list, diff, keep,
//! revert, re-apply, revert hunks, edit) are in `app/review.rs`.

use crate::artifacts::projection::{ArtifactRecord, Review};
pub(crate) use crate::artifacts::swap::{abandoned, ReviewDone, Step, Swap};
use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload, FileEffect, ReviewAction};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How a file on disk relates to the run's version of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskState {
    /// Holds exactly what the run left.
    RunVersion,
    /// Holds what was there before the run (after a revert).
    BeforeVersion,
    /// Holds what the user's review left: the run's change minus the
    /// hunks they reverted.
    ReviewedVersion,
    /// Changed by someone else since.
    ChangedSince,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactView {
    pub record: ArtifactRecord,
    pub disk: DiskState,
    pub current: Option<ContentHash>,
    pub before_bytes: u64,
    pub after_bytes: u64,
    /// Lines added and removed (None for binary files).
    pub lines: Option<(u32, u32)>,
}

/// How a file holding `current` relates to the run's version of it.
pub(crate) fn disk_state(record: &ArtifactRecord, current: &Option<ContentHash>) -> DiskState {
    if *current == record.after {
        DiskState::RunVersion
    } else if *current == record.before {
        DiskState::BeforeVersion
    } else if *current == record.now {
        DiskState::ReviewedVersion
    } else {
        DiskState::ChangedSince
    }
}

/// The version of a file the review shows against the one from before
/// the run: the run's (also once reverted, so it can be re-applied), or
/// what the user kept of it.
pub(crate) fn shown_version(record: &ArtifactRecord) -> &Option<ContentHash> {
    match record.review {
        Review::Reverted => &record.after,
        Review::Pending | Review::Kept | Review::Partial => &record.now,
    }
}

/// The folders the run's commands made (for a revert) or removed (for a
/// re-apply): the ones a review may remove again once they are empty.
pub(crate) fn command_dirs(events: &[EventEnvelope], action: ReviewAction) -> BTreeSet<String> {
    let mut dirs = BTreeSet::new();
    for e in events {
        if let EventPayload::CommandFinished {
            created_dirs,
            removed_dirs,
            ..
        } = &e.payload
        {
            dirs.extend(match action {
                // A rewind removes what it leaves empty of either kind
                // only when the commands made it; what they removed stays.
                ReviewAction::Revert
                | ReviewAction::RevertHunks
                | ReviewAction::Rewind
                | ReviewAction::Edit => created_dirs.iter().cloned(),
                ReviewAction::Reapply | ReviewAction::Redo => removed_dirs.iter().cloned(),
            });
        }
    }
    dirs
}

/// After removing the file at `path` (`rel` in the workspace), removes
/// the folders above it that are empty and are, or lie below, one of
/// `dirs` (the topmost folders a command made or removed), deepest
/// first. A folder that is not empty (or not removable) stops it: an
/// empty folder left behind is untidy, never wrong, so that is not an
/// error.
pub(crate) fn prune_empty_dirs(path: &Path, rel: &str, dirs: &BTreeSet<String>) {
    let within = |dir: &str| {
        dirs.iter().any(|top| {
            dir.strip_prefix(top.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    };
    let mut abs = path.to_path_buf();
    let mut rel = rel;
    while let Some((parent, _)) = rel.rsplit_once('/') {
        abs.pop();
        if !within(parent) || std::fs::remove_dir(&abs).is_err() {
            break;
        }
        rel = parent;
    }
}

/// Review intents with no outcome (the process stopped between the two),
/// by path: what the outcome would record.
pub(crate) fn open_reviews(events: &[EventEnvelope]) -> BTreeMap<String, ReviewDone> {
    let mut open = BTreeMap::new();
    for e in events {
        match &e.payload {
            EventPayload::ReviewIntended {
                path,
                action,
                restored_hash,
                replaced_hash,
                forced,
                hunks,
                rewound_to,
            } => {
                let intent = ReviewDone {
                    action: *action,
                    rewound_to: *rewound_to,
                    hunks: hunks.clone(),
                    diff: String::new(),
                    restored: restored_hash.clone(),
                    replaced: replaced_hash.clone(),
                    forced: *forced,
                };
                open.insert(path.clone(), intent);
            }
            EventPayload::ReviewAbandoned { path, .. } => {
                open.remove(path);
            }
            _ => {
                if let Some(
                    FileEffect::Reverted { path }
                    | FileEffect::Reapplied { path }
                    | FileEffect::HunksReverted { path, .. }
                    | FileEffect::Rewound { path, .. }
                    | FileEffect::Edited { path, .. },
                ) = e.payload.file_effect()
                {
                    open.remove(path);
                }
            }
        }
    }
    open
}

/// What settles a review the process stopped in the middle of, from what
/// the file at `rel` holds `now`: it holds the version put back → the
/// action took effect; what it replaced → it did not; neither → nothing
/// is assumed and the review stays as it was.
pub(crate) fn settled_review(
    rel: String,
    intent: ReviewDone,
    now: Option<ContentHash>,
) -> EventPayload {
    if now == intent.restored {
        return intent.event(&rel);
    }
    let reason = if now == intent.replaced {
        "BearAgent stopped before the file was written; it holds what it held"
    } else {
        "BearAgent stopped during this change and the file holds neither version; nothing is assumed"
    };
    EventPayload::ReviewAbandoned {
        path: rel,
        reason: reason.to_owned(),
    }
}
