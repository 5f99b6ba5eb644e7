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

/// One file an apply (or its undo) writes in the main checkout: what it
/// holds before and after, content and permission bits (None: absent).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeFileChange {
    pub path: String,
    pub before: Option<crate::ContentHash>,
    pub before_mode: Option<u32>,
    pub after: Option<crate::ContentHash>,
    pub after_mode: Option<u32>,
}

/// A step of writing the main checkout for a worktree (DESIGN principles
/// 10 and 13: intent before the disk, outcome after, settled after a crash).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorktreeStep {
    /// About to write the main checkout: applying the worktree, or with
    /// `undo` putting back what applies replaced (`forced`: over the
    /// user's later edits). Each file's version before and after, the
    /// pre-images saved as blobs. `instance` (process `pid`) writes: an
    /// intent of a live one is never settled. Its outcome follows:
    /// `WorktreeApplied`, `ApplyUndone` or `ApplySettled`.
    ApplyStarted {
        undo: bool,
        forced: bool,
        instance: String,
        pid: u32,
        files: Vec<WorktreeFileChange>,
    },
    /// An undo finished: the files in `restored` hold what they held
    /// before the apply (created ones are gone).
    ApplyUndone { restored: Vec<String> },
    /// An apply or undo stopped with no outcome, settled at the next start
    /// from the files as they are (nothing re-executed): `done` hold their
    /// after version, `not_done` their before, `neither` something else.
    ApplySettled {
        undo: bool,
        done: Vec<String>,
        not_done: Vec<String>,
        neither: Vec<String>,
    },
    /// About to remove the worktree's folder and branch, by `instance`
    /// (process `pid`; empty in records older than these fields);
    /// `WorktreeRemoved` follows once they are gone, or the next start
    /// finishes the removal once that process is gone.
    RemovalStarted {
        discarded: bool,
        #[serde(default)]
        instance: String,
        #[serde(default)]
        pid: u32,
    },
}

impl WorktreeStep {
    /// The blobs the step names: an apply's pre- and post-images.
    pub fn images(&self) -> Vec<crate::ContentHash> {
        match self {
            WorktreeStep::ApplyStarted { files, .. } => files
                .iter()
                .flat_map(|f| f.before.iter().chain(&f.after))
                .cloned()
                .collect(),
            WorktreeStep::ApplyUndone { .. }
            | WorktreeStep::ApplySettled { .. }
            | WorktreeStep::RemovalStarted { .. } => Vec::new(),
        }
    }

    /// One line saying what the step is, for timelines and reports.
    pub fn summary(&self) -> String {
        let files = |n: usize| crate::units::plural(n as u64, "file", "files");
        let what = |undo: bool| if undo { "undo" } else { "apply" };
        match self {
            WorktreeStep::ApplyStarted {
                undo,
                forced,
                files: f,
                ..
            } => {
                let forced = if *forced { " (forced)" } else { "" };
                format!("{} started on {}{forced}", what(*undo), files(f.len()))
            }
            WorktreeStep::ApplyUndone { restored } => {
                format!("apply undone: {} back as before", files(restored.len()))
            }
            WorktreeStep::ApplySettled {
                undo,
                done,
                not_done,
                neither,
            } => settled_summary(what(*undo), done, not_done, neither),
            WorktreeStep::RemovalStarted {
                discarded: true, ..
            } => "discarding the worktree".into(),
            WorktreeStep::RemovalStarted {
                discarded: false, ..
            } => "removing the applied worktree".into(),
        }
    }
}

fn settled_summary(what: &str, done: &[String], not_done: &[String], neither: &[String]) -> String {
    let mut line = format!(
        "interrupted {what} settled: {} done, {} not done",
        done.len(),
        not_done.len()
    );
    if !neither.is_empty() {
        line.push_str(&format!("; changed since: {}", neither.join(", ")));
    }
    line
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
