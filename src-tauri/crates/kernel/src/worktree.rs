//! A run in a git worktree of its workspace's repository: where the
//! worktree is, the branch and commits it started from, and what became of
//! it (applied to the main checkout, discarded). BearAgent removes only
//! worktrees recorded here.

use serde::{Deserialize, Serialize};

/// The worktree a run works in, recorded by the run that created it and
/// carried by its follow-ups.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worktree {
    /// The main checkout: the workspace the user picked.
    pub repo: String,
    /// The worktree's folder, where the run works.
    pub path: String,
    /// The branch BearAgent made for it (`bearagent/<name>`).
    pub branch: String,
    /// The commit the user picked to start from.
    pub base: String,
    /// The commit the run started from: `base`, or a commit of the main
    /// checkout's uncommitted changes on top of it (on `branch` only).
    pub start: String,
    /// The main checkout's uncommitted changes were copied in.
    pub carried_changes: bool,
}

/// A file of a worktree that was not applied to the main checkout, and why.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRefusal {
    pub path: String,
    pub reason: String,
}

/// One line saying what applying a worktree did, for timelines and reports.
pub fn applied_summary(
    applied: &[String],
    merged: &[String],
    refused: &[WorktreeRefusal],
) -> String {
    let mut parts = vec![format!(
        "applied {} to the main checkout",
        crate::units::plural(applied.len() as u64, "file", "files")
    )];
    if !merged.is_empty() {
        parts.push(format!("merged {}", merged.join(", ")));
    }
    if !refused.is_empty() {
        let named: Vec<String> = refused
            .iter()
            .map(|r| format!("{} ({})", r.path, r.reason))
            .collect();
        parts.push(format!("refused {}", named.join(", ")));
    }
    parts.join("; ")
}

/// One line saying a worktree was removed.
pub fn removed_summary(discarded: bool) -> String {
    if discarded {
        "worktree discarded (its changes were not applied)".to_owned()
    } else {
        "worktree removed after it was applied".to_owned()
    }
}
