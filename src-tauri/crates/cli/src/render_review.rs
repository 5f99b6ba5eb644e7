//! The CLI's wording of approvals and of the review of a run's files:
//! what each intent is about to do, and what a rewind put back.

use bearagent_kernel::{hunk_list, EventPayload, ReviewAction};

pub(crate) fn approval_granted(p: &EventPayload) -> String {
    let EventPayload::ApprovalGranted {
        by, scope, network, ..
    } = p
    else {
        return String::new();
    };
    let with = if *network { ", with the network" } else { "" };
    format!("approved by {by} ({scope:?}{with})")
}

pub(crate) fn review_intended(p: &EventPayload) -> String {
    let EventPayload::ReviewIntended {
        path,
        action,
        hunks,
        ..
    } = p
    else {
        return String::new();
    };
    match action {
        ReviewAction::Revert => format!("reverting {path}…"),
        ReviewAction::Reapply => format!("re-applying {path}…"),
        ReviewAction::RevertHunks => format!("reverting {} of {path}…", hunk_list(hunks)),
        ReviewAction::Rewind => format!("rewinding {path}…"),
        ReviewAction::Redo => format!("redoing {path}…"),
        ReviewAction::Edit => format!("saving the user's edit of {path}…"),
    }
}

pub(crate) fn artifact_rewound(p: &EventPayload) -> String {
    let EventPayload::ArtifactRewound {
        path,
        to,
        redo,
        restored_hash,
        ..
    } = p
    else {
        return String::new();
    };
    let what = if restored_hash.is_none() {
        "removed"
    } else {
        "restored"
    };
    if *redo {
        format!("{what} {path} as it was before the rewind")
    } else {
        format!("{what} {path} as it was at event {}", to.0)
    }
}
